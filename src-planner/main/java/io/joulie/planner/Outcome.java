package io.joulie.planner;

/** How a node's transition went this tick (the {@code outcome} label of joulie_transitions_total). */
public enum Outcome {
    /** Nothing to do: the node is where the plan wants it, or waits out its settle time (not counted). */
    STEADY,
    /** The node moved to the next state. */
    COMPLETED,
    /** The move to eco waits for performance-only pods. */
    BLOCKED,
    /** Eco was committed although performance-only pods still run (escalation force). */
    FORCED,
    /** Performance-only pods were asked to leave (escalation evict); eco follows once they are gone. */
    EVICTED,
    /**
     * A performance-only pod was found under the eco cap (a contract violation): the node goes back to the
     * performance cap at once, DrainingPerformance while the plan still wants it eco.
     */
    RESCUED,
    /**
     * The move waits: the transition budget (MAX_TRANSITIONS_PER_TICK per reconcile interval, ticks and rechecks
     * together) is spent, or it is a drain or a raise, which a recheck leaves to the next tick.
     */
    DEFERRED,
    /**
     * A rescue is held: the node was rescued {@link Planner#RESCUES_PER_NODE} times within {@link Planner#RESCUE_WINDOW}
     * already, so its performance-only pods stay under the eco cap until the window allows another (decision 156).
     */
    HELD;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
