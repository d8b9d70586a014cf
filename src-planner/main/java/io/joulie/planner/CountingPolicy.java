package io.joulie.planner;

/**
 * A policy that decides how many eligible nodes run performance ({@code hp}); which ones is {@link EcoSelection}'s
 * anti-churn choice, shaped by the rules when there are any ({@link RuleEngine}). {@code static_partition},
 * {@code queue_aware_v1} and {@code demand_sized_v1} count; only the debugging {@code rule_swap_v1} does not.
 */
public interface CountingPolicy extends PolicyModule {
    /** How many of the context's eligible nodes run performance, within [0, n]. */
    int performanceNodes(ClusterContext context);

    /**
     * The performance nodes the policy's own demand term asks for (for queue_aware_v1 {@code ceil(P / perNode)}), which a
     * power budget must not cut into; 0 when it has none.
     */
    default int demand(ClusterContext context) {
        return 0;
    }

    /** How {@code hp} was reached, e.g. {@code hp=round(4 x 0.5)=2} (logs, the plan's summary). */
    String formula(ClusterContext context, int hp);

    /**
     * The GPU servers kept out of the GPU eco pool, when the policy sizes one (demand_sized_v1, decision 193): its other
     * GPU servers then go eco before every other node, and the kept ones last. Empty (the default) for a policy that only
     * counts nodes: its eco choice ignores boards, since sending GPU servers eco first caps undeclared GPU work the count
     * was never sized for (on a small heterogeneous day it raised static_partition's GPU energy above all-performance's).
     */
    default java.util.OptionalInt gpuPerformanceNodes(ClusterContext context) {
        return java.util.OptionalInt.empty();
    }

    /**
     * The count, applied to the eligible nodes by the anti-churn rank; the GPU eco pool's servers first and the kept
     * GPU servers last when the policy sizes one ({@link EcoSelection#assign(List, int, int)}).
     */
    @Override
    default Plan plan(ClusterContext context) {
        int hp = performanceNodes(context);
        java.util.OptionalInt gpuKeep = gpuPerformanceNodes(context);
        return new Plan(name(), gpuKeep.isPresent() ? EcoSelection.assign(context.eligible(), hp, gpuKeep.getAsInt())
                : EcoSelection.assign(context.eligible(), hp), hp,
                formula(context, hp) + (gpuKeep.isPresent() ? "; GPU eco pool first, " + gpuKeep.getAsInt() + " GPU servers kept" : ""));
    }
}
