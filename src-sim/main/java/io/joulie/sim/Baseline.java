package io.joulie.sim;

import io.joulie.operator.planner.PolicyType;

/** The three runs compared on the same workload. */
public enum Baseline {
    /** All nodes performance, no caps, no Joulie: the scheduler ignores power-profile selectors. */
    A("all performance", null),
    /** Joulie with static_partition. */
    B("static_partition", PolicyType.STATIC_PARTITION),
    /** Joulie with queue_aware_v1. */
    C("queue_aware_v1", PolicyType.QUEUE_AWARE_V1);

    private final String title;
    private final PolicyType policy;

    Baseline(String title, PolicyType policy) {
        this.title = title;
        this.policy = policy;
    }

    public String title() {
        return title;
    }

    /** The operator policy, or null when Joulie does not run. */
    public PolicyType policy() {
        return policy;
    }
}
