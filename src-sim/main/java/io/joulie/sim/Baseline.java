package io.joulie.sim;

import io.joulie.planner.PolicyType;

/** The three runs compared on the same workload. */
public enum Baseline {
    /** All nodes performance, no caps, no Joulie: the scheduler ignores power-profile selectors. */
    A(null),
    /** Joulie with static_partition. */
    B(PolicyType.STATIC_PARTITION),
    /** Joulie with queue_aware_v1. */
    C(PolicyType.QUEUE_AWARE_V1);

    private final PolicyType policy;

    Baseline(PolicyType policy) {
        this.policy = policy;
    }

    /** "all performance", or the policy's configuration name. */
    public String title() {
        return policy == null ? "all performance" : policy.configValue();
    }

    /** The operator policy, or null when Joulie does not run. */
    public PolicyType policy() {
        return policy;
    }
}
