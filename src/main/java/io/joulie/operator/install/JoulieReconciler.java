package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
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
import io.joulie.api.v1alpha1.JoulieCondition;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.api.v1alpha1.JoulieStatus;
import io.joulie.api.v1alpha1.JoulieStatusAggregator;
import io.joulie.operator.cluster.CrdOwnership;
import io.joulie.operator.config.EffectivePolicy;
import io.joulie.operator.config.OperatorConfig;
import io.joulie.operator.config.PlanningVariable;
import io.joulie.operator.metrics.AgentPodMetrics;
import io.joulie.operator.runtime.LeaderElection;
import io.joulie.operator.runtime.PlannerStatus;
import io.joulie.operator.webhook.PlacementWebhookServer;
import io.quarkiverse.operatorsdk.annotations.CSVMetadata;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The one controller of the {@code Joulie} resource. Its workflow converges the objects the active resource owns
 * ({@link JoulieDependents}): the agent DaemonSet (only once the agent's admission policy and its binding are in
 * force: {@link JoulieDependents.AdmissionInForce}), the metrics Services and the agent's admission policy always, the
 * placement webhook's Service and registration unless {@code spec.placement} turns it off (decision 209); the
 * Grafana dashboard ConfigMap, ServiceMonitors and a PrometheusRule as {@code spec.monitoring} says; the OpenShift SCC.
 * The optional kinds are dependents only where their CRD is installed (activation conditions); missing, they make a
 * {@code MonitoringReady=False} condition, not a failure, and the controller comes back to look for them. Then it
 * writes the resource's one status: Available / Progressing / Degraded conditions, agent counts, the effective policy,
 * nodes by state and excluded nodes from the planner, and MonitoringReady; only when it changes, and only on the
 * leader. A DaemonSet that selects no node is Degraded with reason {@code NoNodesSelected}, never Available. While a
 * {@code joulie.io} CRD of another project is installed ({@link CrdOwnership}) the workflow does not run.
 */
@Workflow(explicitInvocation = true, dependents = {
        @Dependent(name = JoulieReconciler.AGENT_DAEMONSET, type = JoulieDependents.AgentDaemonSet.class,
                reconcilePrecondition = JoulieDependents.Active.class, dependsOn = JoulieReconciler.AGENT_ADMISSION_BINDING),
        @Dependent(name = "agent-metrics-service", type = JoulieDependents.AgentMetricsService.class,
                reconcilePrecondition = JoulieDependents.Active.class),
        @Dependent(name = "operator-metrics-service", type = JoulieDependents.OperatorMetricsService.class,
                reconcilePrecondition = JoulieDependents.Active.class),
        @Dependent(name = "webhook-service", type = JoulieDependents.WebhookService.class,
                reconcilePrecondition = JoulieDependents.PlacementWanted.class),
        @Dependent(name = "placement-webhook", type = JoulieDependents.PlacementWebhook.class,
                reconcilePrecondition = JoulieDependents.PlacementWanted.class),
        @Dependent(name = "agent-admission-policy", type = JoulieDependents.AgentAdmissionPolicy.class,
                reconcilePrecondition = JoulieDependents.Active.class),
        @Dependent(name = JoulieReconciler.AGENT_ADMISSION_BINDING, type = JoulieDependents.AgentAdmissionPolicyBinding.class,
                reconcilePrecondition = JoulieDependents.Active.class, dependsOn = "agent-admission-policy",
                readyPostcondition = JoulieDependents.AdmissionInForce.class),
        @Dependent(name = "agent-scc", type = JoulieDependents.AgentScc.class,
                activationCondition = JoulieDependents.CrdPresent.class, reconcilePrecondition = JoulieDependents.Active.class),
        @Dependent(name = "grafana-dashboard", type = JoulieDependents.Dashboard.class,
                reconcilePrecondition = JoulieDependents.DashboardWanted.class),
        @Dependent(name = "operator-service-monitor", type = JoulieDependents.OperatorServiceMonitor.class,
                activationCondition = JoulieDependents.CrdPresent.class,
                reconcilePrecondition = JoulieDependents.ServiceMonitorsWanted.class),
        @Dependent(name = "agent-service-monitor", type = JoulieDependents.AgentServiceMonitor.class,
                activationCondition = JoulieDependents.CrdPresent.class,
                reconcilePrecondition = JoulieDependents.ServiceMonitorsWanted.class),
        @Dependent(name = "prometheus-rule", type = JoulieDependents.Rules.class,
                activationCondition = JoulieDependents.CrdPresent.class,
                reconcilePrecondition = JoulieDependents.RulesWanted.class)})
@ControllerConfiguration(name = "joulie")
@CSVMetadata(bundleName = JoulieBundle.NAME)
public class JoulieReconciler implements Reconciler<Joulie> {
    private static final Logger LOG = Logger.getLogger(JoulieReconciler.class);
    private static final ResourceID ACTIVE = new ResourceID(Joulie.ACTIVE_NAME);
    static final String AGENT_DAEMONSET = "agent-daemonset";
    static final String AGENT_ADMISSION_BINDING = "agent-admission-policy-binding";
    static final String AGENT_PODS = "agent-pods";
    static final String AGENT_EVENTS = "agent-events";

    private final EffectivePolicy policy;
    private final PlannerStatus planner;
    private final LeaderElection leader;
    private final CrdOwnership crds;
    private final Clock clock;
    private final AgentPodMetrics agentPods;
    private final Duration crdRecheck;

    private final PlacementWebhookServer webhook;

    public JoulieReconciler(EffectivePolicy policy, PlannerStatus planner, LeaderElection leader, CrdOwnership crds,
                            Clock clock, AgentPodMetrics agentPods, OperatorConfig config, PlacementWebhookServer webhook) {
        this.webhook = webhook;
        this.agentPods = agentPods;
        this.policy = policy;
        this.clock = clock;
        this.planner = planner;
        this.leader = leader;
        this.crds = crds;
        this.crdRecheck = config.optionalCrdRecheck();
    }

    /** Planner reports re-run this reconciler, so the status follows them. */
    @Override
    public List<EventSource<?, Joulie>> prepareEventSources(EventSourceContext<Joulie> context) {
        SimpleInboundEventSource<Joulie> signals = new SimpleInboundEventSource<>("joulie-signals");
        planner.onChange(() -> signals.propagateEvent(ACTIVE));
        // a renewed webhook certificate goes into the webhook configuration's caBundle
        webhook.onCertificateChange(() -> signals.propagateEvent(ACTIVE));
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
        Optional<JoulieStatusAggregator.Problem> foreign = crds.foreign();
        boolean active = Joulie.ACTIVE_NAME.equals(joulie.getMetadata().getName());
        Monitoring monitoring = null;
        boolean apiGone = false;
        if (foreign.isEmpty()) {
            // The dependents are kept by every replica (they agree, so nothing is written)
            context.managedWorkflowAndDependentResourceContext().reconcileManagedWorkflow();
            apiGone = context.managedWorkflowAndDependentResourceContext().get(JoulieDependents.API_GONE, Boolean.class).orElse(false);
            monitoring = active ? monitoring(joulie, context) : null;
        }
        // A wanted kind whose CRD is missing: look again later (the activation condition checks at most that often);
        // a kind whose API went away: at once, so that its dependent is deactivated
        Optional<Duration> again = apiGone ? Optional.of(Duration.ofSeconds(1))
                : monitoring != null && monitoring.missing() ? Optional.of(crdRecheck) : Optional.empty();
        if (!leader.isLeader()) {
            // The status only by the leader: a standby has no planner report, and two writers made each other's
            // patches fail (409, 422) on a real API server.
            return again.map(UpdateControl.<Joulie>noUpdate()::rescheduleAfter).orElseGet(UpdateControl::noUpdate);
        }
        if (!active) {
            // Only the active resource's spec.policy may be resolved: resolving records the last valid settings.
            return write(joulie, JoulieStatusAggregator.of(joulie).notActive(clock.instant()));
        }
        if (monitoring == null) {
            return write(joulie, JoulieStatusAggregator.of(joulie).problem(foreign.orElseThrow().reason(),
                    foreign.orElseThrow().message()).build(clock.instant()));
        }
        UpdateControl<Joulie> update = write(joulie, statusOf(joulie, context.getSecondaryResource(DaemonSet.class).orElse(null),
                context.getSecondaryResources(Pod.class), context.getSecondaryResources(Event.class),
                policy.resolve(joulie), planner.latest().orElse(null), monitoring.condition()));
        return again.map(update::rescheduleAfter).orElse(update);
    }

    /** The MonitoringReady condition, and whether a wanted kind's CRD is missing. */
    record Monitoring(Condition condition, boolean missing) {
    }

    /** What {@code spec.monitoring} asks for against what the workflow found installed (its activation conditions). */
    static Monitoring monitoring(Joulie joulie, Context<Joulie> context) {
        JoulieSpec.Monitoring m = MonitoringTemplate.monitoring(joulie);
        List<String> created = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        if (m.grafanaDashboardEnabled()) {
            created.add("Grafana dashboard ConfigMap " + MonitoringTemplate.DASHBOARD);
        }
        optional(context, ServiceMonitor.class, m.serviceMonitorEnabled(), "ServiceMonitors "
                + List.of(AgentTemplate.OPERATOR_METRICS, AgentTemplate.NAME), created, missing);
        optional(context, PrometheusRule.class, m.prometheusRulesEnabled(), "PrometheusRule [" + MonitoringTemplate.RULES + "]",
                created, missing);
        if (!missing.isEmpty()) {
            return new Monitoring(JoulieStatusAggregator.condition(JoulieCondition.MonitoringReady, false,
                    ConditionReason.PrometheusOperatorMissing, String.join("; ", missing)
                            + (created.isEmpty() ? "" : "; created: " + String.join(", ", created))), true);
        }
        return new Monitoring(created.isEmpty()
                ? JoulieStatusAggregator.condition(JoulieCondition.MonitoringReady, true, ConditionReason.Disabled,
                "spec.monitoring turns every monitoring object off")
                : JoulieStatusAggregator.condition(JoulieCondition.MonitoringReady, true, ConditionReason.Ready,
                "created: " + String.join(", ", created)), false);
    }

    private static void optional(Context<Joulie> context, Class<? extends HasMetadata> kind, boolean wanted, String what,
                                 List<String> created, List<String> missing) {
        if (!wanted) {
            return;
        }
        boolean installed = context.managedWorkflowAndDependentResourceContext()
                .get(JoulieDependents.CrdPresent.crdKey(kind), Boolean.class).orElse(false);
        if (installed) {
            created.add(what);
        } else {
            missing.add(HasMetadata.getFullResourceName(kind) + " is not installed (no Prometheus Operator?): " + what + " not created");
        }
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
     * @param monitoring the MonitoringReady condition
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
