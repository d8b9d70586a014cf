package io.joulie.api.v1alpha1;

/**
 * The reasons of the {@code Joulie} conditions; the constant's name is the reason on the wire. The problems that
 * make the resource {@code Degraded} are declared in priority order: when several are found, the first names
 * the condition's reason.
 */
public enum ConditionReason {
    // Problems, most important first.
    /**
     * A {@code joulie.io} CRD installed is another project's (no {@code joulie.io/schema} annotation): the operator does
     * not act (docs/install.md, "Coming from the Go Joulie").
     */
    ForeignCustomResourceDefinition(false),
    /** The agent DaemonSet selects no node. */
    NoNodesSelected(false),
    /** The DaemonSet controller cannot create agent pods: admission (Pod Security, SCC, quota, policy) refuses them. */
    AgentPodsRefused(false),
    /** Agent pods were created but the scheduler cannot place them (resources, taints, affinity). */
    AgentPodsUnschedulable(false),
    /** Agent pods were placed but do not run (image pull, crash loop, container configuration). */
    AgentPodsFailing(false),
    /** {@code spec.policy} cannot be used; the settings in force stay. */
    InvalidPolicy(false),
    /** Prometheus cannot be read; the telemetry-driven rules hold their last decisions. Found by the planner. */
    TelemetryUnavailable(true),
    /** The power budget cannot be met even with every node that may go eco in eco. Found by the planner. */
    PowerBudgetUnmet(true),
    /**
     * A node's agent has not confirmed the performance cap within CAP_CONFIRMATION_TIMEOUT; its performance label waits.
     * Found by the planner.
     */
    CapUnconfirmed(true),
    /**
     * The operator's environment sets planning settings, which belong in {@code spec.policy}: honoured until the next
     * release, each named with the field to use instead.
     */
    PlanningSettingInEnvironment(false),
    /** Reconciling the resource failed. */
    ReconcileError(false),
    /** Not the resource named {@code joulie}: it is not acted on. */
    NotActive(false),
    // The state of the agent rollout.
    Deploying(false),
    RollingOut(false),
    AgentsNotReady(false),
    AllAgentsReady(false),
    RolloutComplete(false),
    // MonitoringReady.
    Ready(false),
    Disabled(false),
    PrometheusOperatorMissing(false),
    MonitoringError(false);

    private final boolean fromPlanner;

    ConditionReason(boolean fromPlanner) {
        this.fromPlanner = fromPlanner;
    }

    /** Whether the planning leader reports it (a replica that does not plan keeps what the leader wrote). */
    public boolean fromPlanner() {
        return fromPlanner;
    }
}
