package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.joulie.api.v1alpha1.ConditionReason;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieStatus;
import io.joulie.api.v1alpha1.JoulieStatusAggregator;
import io.joulie.operator.config.EffectivePolicy;
import io.joulie.operator.config.PlanningVariable;
import io.joulie.operator.metrics.AgentPodMetrics;
import io.joulie.operator.runtime.LeaderElection;
import io.joulie.operator.runtime.PlannerStatus;
import io.quarkiverse.operatorsdk.annotations.CSVMetadata;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Set;

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
public class JoulieReconciler implements Reconciler<Joulie> {
    private static final Logger LOG = Logger.getLogger(JoulieReconciler.class);
    private static final ResourceID ACTIVE = new ResourceID(Joulie.ACTIVE_NAME);
    static final String AGENT_PODS = "agent-pods";
    static final String AGENT_EVENTS = "agent-events";

    private final EffectivePolicy policy;
    private final PlannerStatus planner;
    private final LeaderElection leader;
    private final MonitoringState monitoring;
    private final Clock clock;
    private final AgentPodMetrics agentPods;

    public JoulieReconciler(EffectivePolicy policy, PlannerStatus planner, LeaderElection leader, MonitoringState monitoring,
                            Clock clock, AgentPodMetrics agentPods) {
        this.agentPods = agentPods;
        this.policy = policy;
        this.clock = clock;
        this.planner = planner;
        this.leader = leader;
        this.monitoring = monitoring;
    }

    /** Planner reports and monitoring outcomes re-run this reconciler, so the status follows them. */
    @Override
    public List<EventSource<?, Joulie>> prepareEventSources(EventSourceContext<Joulie> context) {
        SimpleInboundEventSource<Joulie> signals = new SimpleInboundEventSource<>("joulie-signals");
        planner.onChange(() -> signals.propagateEvent(ACTIVE));
        monitoring.onChange(() -> signals.propagateEvent(ACTIVE));
        // What the cluster says about the agent pods (why they are refused, unschedulable or failing) re-runs this
        // reconciler: the DaemonSet's status alone does not change when the controller keeps failing to create pods.
        InformerEventSource<Pod, Joulie> pods = new InformerEventSource<>(InformerEventSourceConfiguration.from(Pod.class, Joulie.class)
                .withName(AGENT_PODS).withWatchCurrentNamespace()
                .withLabelSelector(AgentTemplate.NAME_LABEL + "=" + AgentTemplate.NAME)
                .withSecondaryToPrimaryMapper(p -> Set.of(ACTIVE)).build(), context);
        InformerEventSource<Event, Joulie> events = new InformerEventSource<>(InformerEventSourceConfiguration.from(Event.class, Joulie.class)
                .withName(AGENT_EVENTS).withWatchCurrentNamespace()
                .withSecondaryToPrimaryMapper(e -> AgentTemplate.isAboutAgents(e) ? Set.of(ACTIVE) : Set.of()).build(), context);
        return List.of(signals, pods, events);
    }

    @Override
    public UpdateControl<Joulie> reconcile(Joulie joulie, Context<Joulie> context) {
        if (!leader.isLeader()) {
            // The dependents are kept by every replica (they agree, so nothing is written); the status only by the
            // leader: a standby has no planner report, and two writers made each other's patches fail (409, 422) on a
            // real API server.
            return UpdateControl.noUpdate();
        }
        if (!Joulie.ACTIVE_NAME.equals(joulie.getMetadata().getName())) {
            // Only the active resource's spec.policy may be resolved: resolving records the last valid settings.
            return write(joulie, JoulieStatusAggregator.of(joulie).notActive(clock.instant()));
        }
        return write(joulie, statusOf(joulie, context.getSecondaryResource(DaemonSet.class).orElse(null),
                context.getSecondaryResources(Pod.class), context.getSecondaryResources(Event.class),
                policy.resolve(joulie), planner.latest().orElse(null), monitoring.condition().orElse(null)));
    }

    @Override
    public ErrorStatusUpdateControl<Joulie> updateErrorStatus(Joulie joulie, Context<Joulie> context, Exception e) {
        LOG.warnf("Joulie %s could not be reconciled: %s", joulie.getMetadata().getName(), e.getMessage());
        if (!leader.isLeader()) {
            return ErrorStatusUpdateControl.noStatusUpdate();
        }
        JoulieStatus status = JoulieStatusAggregator.of(joulie).reconcileError(message(e), clock.instant());
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
     * The active resource's status.
     *
     * @param daemonSet  the agent DaemonSet as last seen, or null
     * @param pods       the agent pods
     * @param events     Events about the agent DaemonSet and its pods
     * @param policy     the effective policy and why spec.policy was rejected, if it was
     * @param report     the leader's last planner report, or null before its first tick (the status then keeps
     *                   the counts written before)
     * @param monitoring the MonitoringReady condition from the monitoring controller, or null before its first run
     */
    private JoulieStatus statusOf(Joulie joulie, DaemonSet daemonSet, Set<Pod> pods, Set<Event> events,
                                  EffectivePolicy.Resolution policy,
                                  PlannerStatus.Report report, Condition monitoring) {
        JoulieStatusAggregator status = JoulieStatusAggregator.of(joulie).effectivePolicy(policy.describe());
        DaemonSetStatus s = daemonSet == null ? null : daemonSet.getStatus();
        if (s != null && s.getDesiredNumberScheduled() != null) {
            status.agents(s.getDesiredNumberScheduled(), Objects.requireNonNullElse(s.getNumberReady(), 0),
                    Objects.requireNonNullElse(s.getUpdatedNumberScheduled(), 0),
                    AgentTemplate.nodeSelection(daemonSet.getSpec().getTemplate().getSpec()));
            AgentPodProblems.Found found = AgentPodProblems.of(daemonSet, pods, events);
            status.agentProblems(found.problems());
            agentPods.record(found.counts());
        } else {
            agentPods.record(AgentPodMetrics.Counts.NONE);
        }
        if (!policy.errors().isEmpty()) {
            status.problem(ConditionReason.InvalidPolicy, "spec.policy is not applied, the settings in "
                    + "status.effectivePolicy stay in force: " + String.join("; ", policy.errors()));
        }
        if (!policy.environment().isEmpty()) {
            status.problem(ConditionReason.PlanningSettingInEnvironment, PlanningVariable.summary(policy.environment()));
        }
        if (report != null) {
            status.planner(report.nodes(), report.excluded(), report.problems(), report.budgetHold());
        }
        return status.condition(monitoring).build(clock.instant());
    }

    private static UpdateControl<Joulie> write(Joulie joulie, JoulieStatus status) {
        if (status.equals(joulie.getStatus())) {
            return UpdateControl.noUpdate();
        }
        joulie.setStatus(status);
        return UpdateControl.patchStatus(joulie);
    }
}
