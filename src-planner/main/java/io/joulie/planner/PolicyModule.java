package io.joulie.planner;

/** A policy maps a cluster context to a target profile for every eligible node. */
public interface PolicyModule {
    /** The name written into {@code spec.policy.name}. */
    String name();

    Plan plan(ClusterContext context);
}
