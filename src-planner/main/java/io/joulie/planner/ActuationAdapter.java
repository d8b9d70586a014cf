package io.joulie.planner;

/**
 * Writes the planner's decisions. The operator's implementation writes NodePowerProfiles and node labels
 * (only what changed); the simulator applies them to simulated nodes.
 */
public interface ActuationAdapter {
    /** Makes the node's desired state match {@code assignment}; returns whether anything was written. */
    boolean apply(NodeAssignment assignment);

    /** The node left management: remove its NodePowerProfile and Joulie label; returns whether anything was written. */
    boolean release(String node);

    /** Asks a performance-only pod ({@code namespace/name}) to leave through the Eviction API. */
    EvictionResult evict(String pod);

    enum EvictionResult {
        /** Accepted: the pod is being deleted. */
        EVICTED,
        /** Refused for now (a PodDisruptionBudget, 429): retried next tick. */
        REFUSED,
        /** The pod is already gone. */
        GONE,
        /** The API call failed. */
        FAILED,
        /** Not asked this tick: the tick's eviction budget (MAX_EVICTIONS_PER_TICK) was spent; asked again next tick. */
        DEFERRED
    }
}
