package io.joulie.planner;

/** What a pod demands of its node's power profile, derived from its scheduling constraints. */
public enum PodClass {
    /** Can only run on performance supply: protects its node from going eco. */
    PERFORMANCE,
    /** Can only run on eco supply. */
    ECO,
    /** No (effective) power-profile constraint: general demand. */
    UNCONSTRAINED
}
