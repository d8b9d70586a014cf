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
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.api.v1alpha1.JoulieStatus;
import io.joulie.operator.config.EffectivePolicy;
import io.joulie.operator.runtime.LeaderElection;
import io.joulie.operator.runtime.PlannerStatus;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Converges the active {@code Joulie} resource: the agent DaemonSet and the metrics Services (dependent
 * resources; the agent's ServiceAccount and RBAC come with the install, decision "OLM install mode and the
 * agent ServiceAccount"), then the resource's one status: Available / Progressing / Degraded conditions,
 * agent counts, the effective policy, nodes by state and excluded nodes from the planner, and the
 * monitoring controller's MonitoringReady condition; written only when it changes. A DaemonSet that
 * selects no node is Degraded with reason {@code NoNodesSelected}, never Available.
 */
@Workflow(dependents = {
        @Dependent(name = "agent-daemonset", type = AgentDependents.AgentDaemonSet.class,
                reconcilePrecondition = AgentDependents.Active.class),
        @Dependent(name = "agent-metrics-service", type = AgentDependents.AgentMetricsService.class,
                reconcilePrecondition = AgentDependents.Active.class),
        @Dependent(name = "operator-metrics-service", type = AgentDependents.OperatorMetricsService.class,
                reconcilePrecondition = AgentDependents.Active.class),
        @Dependent(name = "agent-admission-policy", type = AgentDependents.AgentAdmissionPolicy.class,
                reconcilePrecondition = AgentDependents.Active.class),
        @Dependent(name = "agent-admission-policy-binding", type = AgentDependents.AgentAdmissionPolicyBinding.class,
                reconcilePrecondition = AgentDependents.Active.class, dependsOn = "agent-admission-policy")})
@ControllerConfiguration(name = "joulie")
@CSVMetadata(bundleName = JoulieBundle.NAME)
public class JoulieReconciler implements Reconciler<JoulieInstallation> {
    private static final Logger LOG = Logger.getLogger(JoulieReconciler.class);
    private static final ResourceID ACTIVE = new ResourceID(JoulieInstallation.ACTIVE_NAME);

    private final EffectivePolicy policy;
    private final PlannerStatus planner;
    private final LeaderElection leader;
    private final MonitoringState monitoring;

    public JoulieReconciler(EffectivePolicy policy, PlannerStatus planner, LeaderElection leader, MonitoringState monitoring) {
        this.policy = policy;
        this.planner = planner;
        this.leader = leader;
        this.monitoring = monitoring;
    }

    /** Planner reports and monitoring outcomes re-run this reconciler, so the status follows them. */
    @Override
    public List<EventSource<?, JoulieInstallation>> prepareEventSources(EventSourceContext<JoulieInstallation> context) {
        SimpleInboundEventSource<JoulieInstallation> signals = new SimpleInboundEventSource<>("joulie-signals");
        planner.onChange(() -> signals.propagateEvent(ACTIVE));
        monitoring.onChange(() -> signals.propagateEvent(ACTIVE));
        return List.of(signals);
    }

    @Override
    public UpdateControl<JoulieInstallation> reconcile(JoulieInstallation joulie, Context<JoulieInstallation> context) {
        if (!leader.isLeader()) {
            // The dependents are kept by every replica (they agree, so nothing is written); the status only by the
            // leader: a standby has no planner report, and two writers made each other's patches fail (409, 422) on a
            // real API server.
            return UpdateControl.noUpdate();
        }
        if (!JoulieInstallation.ACTIVE_NAME.equals(joulie.getMetadata().getName())) {
            // Only the active resource's spec.policy may be resolved: resolving records the last valid settings.
            return write(joulie, statusFor(joulie, new Inputs(null, null, null, null)));
        }
        Inputs in = new Inputs(context.getSecondaryResource(DaemonSet.class).orElse(null), policy.resolve(joulie),
                planner.latest().orElse(null), monitoring.condition().orElse(null));
        return write(joulie, statusFor(joulie, in));
    }

    @Override
    public ErrorStatusUpdateControl<JoulieInstallation> updateErrorStatus(JoulieInstallation joulie,
                                                                          Context<JoulieInstallation> context, Exception e) {
        LOG.warnf("Joulie %s could not be reconciled: %s", joulie.getMetadata().getName(), e.getMessage());
        if (!leader.isLeader()) {
            return ErrorStatusUpdateControl.noStatusUpdate();
        }
        JoulieStatus previous = joulie.getStatus();
        JoulieStatus status = withConditions(joulie, previous == null ? null : previous.agents(),
                previous == null ? null : previous.effectivePolicy(), previous == null ? null : previous.nodes(),
                previous == null ? null : previous.excludedNodes(),
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

    /**
     * What the status is computed from.
     *
     * @param daemonSet  the agent DaemonSet as last seen, or null
     * @param policy     the effective policy and why spec.policy was rejected, if it was
     * @param planner    the leader's last planner report, or null before its first tick (the status then keeps
     *                   the counts written before)
     * @param monitoring the MonitoringReady condition from the monitoring controller, or null before its first run
     */
    record Inputs(DaemonSet daemonSet, EffectivePolicy.Resolution policy, PlannerStatus.Report planner,
                  Condition monitoring) {
    }

    static JoulieStatus statusFor(JoulieInstallation joulie, Inputs in) {
        if (!JoulieInstallation.ACTIVE_NAME.equals(joulie.getMetadata().getName())) {
            String m = "only the Joulie resource named '" + JoulieInstallation.ACTIVE_NAME + "' is acted on";
            return withConditions(joulie, null, null, null, null, condition("Available", false, "NotActive", m),
                    condition("Progressing", false, "NotActive", m), condition("Degraded", true, "NotActive", m));
        }
        JoulieStatus previous = joulie.getStatus();
        JoulieStatus.Nodes nodes = in.planner() != null ? in.planner().nodes() : previous == null ? null : previous.nodes();
        List<JoulieStatus.ExcludedNode> excluded = in.planner() != null
                ? (in.planner().excluded().isEmpty() ? null : in.planner().excluded())
                : previous == null ? null : previous.excludedNodes();
        JoulieSpec.Policy effective = in.policy().describe();

        // Problems in priority order; the first one is Degraded's reason.
        List<PlannerStatus.Problem> problems = new ArrayList<>();
        DaemonSetStatus s = in.daemonSet() == null ? null : in.daemonSet().getStatus();
        JoulieStatus.Agents agents = null;
        Condition available;
        Condition progressing;
        String healthyReason;
        if (s == null || s.getDesiredNumberScheduled() == null) {
            String m = "the agent DaemonSet is being created";
            available = condition("Available", false, "Deploying", m);
            progressing = condition("Progressing", true, "Deploying", m);
            healthyReason = "Deploying";
        } else {
            int desired = s.getDesiredNumberScheduled();
            int ready = Objects.requireNonNullElse(s.getNumberReady(), 0);
            int updated = Objects.requireNonNullElse(s.getUpdatedNumberScheduled(), 0);
            agents = new JoulieStatus.Agents(desired, ready, updated);
            if (desired == 0) {
                String m = "the agent DaemonSet selects no node (nodeSelector "
                        + in.daemonSet().getSpec().getTemplate().getSpec().getNodeSelector() + ")";
                available = condition("Available", false, "NoNodesSelected", m);
                progressing = condition("Progressing", false, "NoNodesSelected", m);
                problems.add(new PlannerStatus.Problem("NoNodesSelected", m));
                healthyReason = "NoNodesSelected";
            } else {
                String counts = ready + " of " + desired + " agents ready, " + updated + " updated";
                boolean done = ready == desired && updated == desired;
                available = condition("Available", done, done ? "AllAgentsReady" : "AgentsNotReady", counts);
                progressing = condition("Progressing", !done, done ? "RolloutComplete" : "RollingOut", counts);
                healthyReason = done ? "AllAgentsReady" : "RollingOut";
            }
        }
        if (!in.policy().errors().isEmpty()) {
            problems.add(new PlannerStatus.Problem("InvalidPolicy", "spec.policy is not applied, the settings in "
                    + "status.effectivePolicy stay in force: " + String.join("; ", in.policy().errors())));
        }
        if (in.planner() != null) {
            problems.addAll(in.planner().problems());
        } else if (previous != null && previous.conditions() != null) {
            // Not the planning leader: keep the planner's problems the leader reported.
            previous.conditions().stream().filter(c -> "Degraded".equals(c.getType()) && "True".equals(c.getStatus())
                            && PLANNER_REASONS.contains(c.getReason()))
                    .findFirst().ifPresent(c -> problems.add(new PlannerStatus.Problem(c.getReason(), c.getMessage())));
        }
        Condition degraded = problems.isEmpty()
                ? condition("Degraded", false, healthyReason, "no problem found")
                : condition("Degraded", true, problems.getFirst().reason(),
                problems.stream().map(PlannerStatus.Problem::message).collect(java.util.stream.Collectors.joining("; ")));
        List<Condition> conditions = new ArrayList<>(List.of(available, progressing, degraded));
        if (in.monitoring() != null) {
            conditions.add(new ConditionBuilder(in.monitoring()).build());
        }
        return withConditions(joulie, agents, effective, nodes, excluded, conditions.toArray(Condition[]::new));
    }

    /** Degraded reasons that come from planning (kept by non-leading replicas). */
    static final java.util.Set<String> PLANNER_REASONS = java.util.Set.of(PlannerStatus.TELEMETRY_UNAVAILABLE,
            PlannerStatus.POWER_BUDGET_UNMET);

    static Condition condition(String type, boolean status, String reason, String message) {
        return new ConditionBuilder().withType(type).withStatus(status ? "True" : "False").withReason(reason)
                .withMessage(message).build();
    }

    /** The new status; a condition whose status did not change keeps its lastTransitionTime. */
    private static JoulieStatus withConditions(JoulieInstallation joulie, JoulieStatus.Agents agents,
                                               JoulieSpec.Policy effective, JoulieStatus.Nodes nodes,
                                               List<JoulieStatus.ExcludedNode> excluded, Condition... conditions) {
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
        return new JoulieStatus(result, joulie.getMetadata().getGeneration(), agents, effective, nodes, excluded);
    }

    private static UpdateControl<JoulieInstallation> write(JoulieInstallation joulie, JoulieStatus status) {
        if (status.equals(joulie.getStatus())) {
            return UpdateControl.noUpdate();
        }
        joulie.setStatus(status);
        return UpdateControl.patchStatus(joulie);
    }
}
