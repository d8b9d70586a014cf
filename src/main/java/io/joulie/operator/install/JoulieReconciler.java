package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import io.quarkiverse.operatorsdk.annotations.CSVMetadata;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.joulie.api.v1alpha1.JoulieInstallation;
import io.joulie.api.v1alpha1.JoulieStatus;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Converges the active {@code Joulie} resource: the agent ServiceAccount, DaemonSet and metrics Service
 * (dependent resources), then a status with Available / Progressing / Degraded conditions and agent
 * counts, written only when it changes. A DaemonSet that selects no node is Degraded with reason
 * {@code NoNodesSelected}, never Available.
 */
@Workflow(dependents = {
        @Dependent(name = "agent-service-account", type = AgentDependents.AgentServiceAccount.class,
                reconcilePrecondition = AgentDependents.Active.class),
        @Dependent(name = "agent-daemonset", type = AgentDependents.AgentDaemonSet.class, dependsOn = "agent-service-account",
                reconcilePrecondition = AgentDependents.Active.class),
        @Dependent(name = "agent-metrics-service", type = AgentDependents.AgentMetricsService.class,
                reconcilePrecondition = AgentDependents.Active.class)})
@ControllerConfiguration(name = "joulie")
@CSVMetadata(bundleName = "joulie", displayName = "Joulie",
        description = "Joulie saves datacenter energy without breaking performance contracts: every minute the operator "
                + "decides which managed nodes run the performance power profile and which run eco, moves nodes between "
                + "them through a safe two-phase downgrade, and a node agent enforces the CPU power caps (RAPL through "
                + "powercap, DVFS fallback) and reports what happened.",
        keywords = {"energy", "power", "rapl", "hpc", "green computing", "node agent"},
        maturity = "alpha", minKubeVersion = "1.27.0",
        provider = @CSVMetadata.Provider(name = "Joulie"),
        icon = @CSVMetadata.Icon(fileName = "joulie-icon.svg", mediatype = "image/svg+xml"),
        installModes = {
                @CSVMetadata.InstallMode(type = "AllNamespaces", supported = true),
                @CSVMetadata.InstallMode(type = "OwnNamespace", supported = true),
                @CSVMetadata.InstallMode(type = "SingleNamespace", supported = false),
                @CSVMetadata.InstallMode(type = "MultiNamespace", supported = false)},
        annotations = @CSVMetadata.Annotations(capabilities = "Basic Install", categories = "Monitoring"))
public class JoulieReconciler implements Reconciler<JoulieInstallation> {
    private static final Logger LOG = Logger.getLogger(JoulieReconciler.class);

    @Override
    public UpdateControl<JoulieInstallation> reconcile(JoulieInstallation joulie, Context<JoulieInstallation> context) {
        JoulieStatus status = statusFor(joulie, context.getSecondaryResource(DaemonSet.class).orElse(null));
        return write(joulie, status);
    }

    @Override
    public ErrorStatusUpdateControl<JoulieInstallation> updateErrorStatus(JoulieInstallation joulie,
                                                                          Context<JoulieInstallation> context, Exception e) {
        LOG.warnf("Joulie %s could not be reconciled: %s", joulie.getMetadata().getName(), e.getMessage());
        JoulieStatus status = withConditions(joulie, null,
                condition("Available", false, "ReconcileError", message(e)),
                condition("Progressing", false, "ReconcileError", message(e)),
                condition("Degraded", true, "ReconcileError", message(e)));
        if (status.equals(joulie.getStatus())) {
            return ErrorStatusUpdateControl.noStatusUpdate();
        }
        joulie.setStatus(status);
        return ErrorStatusUpdateControl.patchStatus(joulie);
    }

    private static String message(Exception e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }

    static JoulieStatus statusFor(JoulieInstallation joulie, DaemonSet ds) {
        if (!JoulieInstallation.ACTIVE_NAME.equals(joulie.getMetadata().getName())) {
            String m = "only the Joulie resource named '" + JoulieInstallation.ACTIVE_NAME + "' is acted on";
            return withConditions(joulie, null, condition("Available", false, "NotActive", m),
                    condition("Progressing", false, "NotActive", m), condition("Degraded", true, "NotActive", m));
        }
        DaemonSetStatus s = ds == null ? null : ds.getStatus();
        if (s == null || s.getDesiredNumberScheduled() == null) {
            return withConditions(joulie, null, condition("Available", false, "Deploying", "the agent DaemonSet is being created"),
                    condition("Progressing", true, "Deploying", "the agent DaemonSet is being created"),
                    condition("Degraded", false, "Deploying", "the agent DaemonSet is being created"));
        }
        int desired = s.getDesiredNumberScheduled();
        int ready = Objects.requireNonNullElse(s.getNumberReady(), 0);
        int updated = Objects.requireNonNullElse(s.getUpdatedNumberScheduled(), 0);
        JoulieStatus.Agents agents = new JoulieStatus.Agents(desired, ready, updated);
        if (desired == 0) {
            String m = "the agent DaemonSet selects no node (nodeSelector " + ds.getSpec().getTemplate().getSpec().getNodeSelector() + ")";
            return withConditions(joulie, agents, condition("Available", false, "NoNodesSelected", m),
                    condition("Progressing", false, "NoNodesSelected", m), condition("Degraded", true, "NoNodesSelected", m));
        }
        String counts = ready + " of " + desired + " agents ready, " + updated + " updated";
        boolean done = ready == desired && updated == desired;
        return withConditions(joulie, agents,
                condition("Available", done, done ? "AllAgentsReady" : "AgentsNotReady", counts),
                condition("Progressing", !done, done ? "RolloutComplete" : "RollingOut", counts),
                condition("Degraded", false, done ? "AllAgentsReady" : "RollingOut", counts));
    }

    private static Condition condition(String type, boolean status, String reason, String message) {
        return new ConditionBuilder().withType(type).withStatus(status ? "True" : "False").withReason(reason)
                .withMessage(message).build();
    }

    /** The new status; a condition whose status did not change keeps its lastTransitionTime. */
    private static JoulieStatus withConditions(JoulieInstallation joulie, JoulieStatus.Agents agents, Condition... conditions) {
        List<Condition> previous = joulie.getStatus() == null || joulie.getStatus().conditions() == null
                ? List.of() : joulie.getStatus().conditions();
        String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        List<Condition> result = new ArrayList<>();
        for (Condition c : conditions) {
            c.setObservedGeneration(joulie.getMetadata().getGeneration());
            c.setLastTransitionTime(previous.stream().filter(p -> p.getType().equals(c.getType())
                            && p.getStatus().equals(c.getStatus())).map(Condition::getLastTransitionTime)
                    .filter(Objects::nonNull).findFirst().orElse(now));
            result.add(c);
        }
        return new JoulieStatus(result, joulie.getMetadata().getGeneration(), agents);
    }

    private static UpdateControl<JoulieInstallation> write(JoulieInstallation joulie, JoulieStatus status) {
        if (status.equals(joulie.getStatus())) {
            return UpdateControl.noUpdate();
        }
        joulie.setStatus(status);
        return UpdateControl.patchStatus(joulie);
    }
}
