package io.joulie.operator.cluster;

/**
 * The reasons of the Events the operator records (docs/metrics.md#events), each with its type; the constant's
 * name is the reason on the wire.
 */
public enum EventReason {
    /** A node's power state changed (on its NodePowerProfile). */
    PowerStateChanged(Type.Normal),
    /** A drain outlasted the timeout and escalation {@code force} committed eco (on the NodePowerProfile). */
    DowngradeForced(Type.Warning),
    /** Performance-only pods were evicted to complete a downgrade (on the NodePowerProfile). */
    PodsEvicted(Type.Normal),
    /** An eviction was refused (a PodDisruptionBudget) or failed; recorded when the refused set changes. */
    EvictionRefused(Type.Warning),
    /** The planner settings or rules in force changed (on the {@code Joulie} resource). */
    PolicyChanged(Type.Normal),
    /** {@code POLICY_TYPE} is not a known policy; planning uses static_partition (on the operator). */
    UnknownPolicy(Type.Warning),
    /**
     * A planning setting is set in the operator's environment; the message names the variable and the
     * {@code spec.policy} field to use instead (on the operator), once per variable and replica.
     */
    PlanningSettingInEnvironment(Type.Warning),
    /** The power budget became unmeetable (on the {@code Joulie} resource), once per episode. */
    PowerBudgetUnmet(Type.Warning),
    /**
     * A performance-only pod was found under the eco cap (its name in the operator's log, not in the Event); the node
     * goes back to the performance cap at once (on the NodePowerProfile), once per pod and node.
     */
    ContractViolation(Type.Warning),
    /**
     * A rescue is held: the node was rescued {@code Planner.RESCUES_PER_NODE} times within {@code Planner.RESCUE_WINDOW},
     * so its performance-only pods stay under the eco cap until the window allows another (on the NodePowerProfile),
     * once per episode.
     */
    RescueHeld(Type.Warning),
    /**
     * A node's agent has not confirmed the performance cap within CAP_CONFIRMATION_TIMEOUT, so its {@code performance}
     * label still waits (on the NodePowerProfile), once per episode.
     */
    CapUnconfirmed(Type.Warning),
    /**
     * An enum field of a NodePowerProfile or TelemetryProfile holds a value this operator version does not know (read as
     * unset, the watch goes on); on the object, once per version of it.
     */
    UnknownValue(Type.Warning);

    /** The Event type. */
    public enum Type {
        Normal,
        Warning
    }

    private final Type type;

    EventReason(Type type) {
        this.type = type;
    }

    public Type type() {
        return type;
    }
}
