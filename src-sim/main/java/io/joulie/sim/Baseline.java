package io.joulie.sim;

import io.joulie.planner.PolicyType;

/** The runs compared on the same workload. */
public enum Baseline {
    /** All nodes performance, no caps, no Joulie: the scheduler ignores power-profile selectors. */
    A("all performance", null),
    /** Joulie with static_partition. */
    B(null, PolicyType.STATIC_PARTITION),
    /** Joulie with queue_aware_v1. */
    C(null, PolicyType.QUEUE_AWARE_V1),
    /** Joulie with demand_sized_v1. */
    D(null, PolicyType.DEMAND_SIZED_V1),
    /** The best schedule found with hindsight: Joulie's guard, labels and caps, eco counts chosen knowing every job. */
    H("hindsight optimum", null),
    /** The clairvoyant constructive schedule: per-type counts built greedily from the future demand; an upper bound on the optimum. */
    U("clairvoyant constructive", null);

    private final String title;
    private final PolicyType policy;

    Baseline(String title, PolicyType policy) {
        this.title = title;
        this.policy = policy;
    }

    /** The policies compared against A and the optimum. */
    public static java.util.List<Baseline> policies() {
        return java.util.Arrays.stream(values()).filter(b -> b.policy != null).toList();
    }

    /** "all performance", "hindsight optimum", "clairvoyant constructive", or the policy's configuration name. */
    public String title() {
        return policy == null ? title : policy.policyName();
    }

    /** The operator policy, or null when no policy runs (A, H, U). */
    public PolicyType policy() {
        return policy;
    }
}
