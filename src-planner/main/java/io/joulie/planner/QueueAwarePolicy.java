package io.joulie.planner;

/**
 * {@code queue_aware_v1}: hp = max(round(n × base), ceil(P / perNode)), clamped to [min, max] and then to
 * [0, n], where P counts performance-only pods cluster-wide. Nonsense bounds are normalised: min &lt; 0 → 0,
 * max ≤ 0 → n, max &lt; min → min, perNode ≤ 0 → 1.
 */
public final class QueueAwarePolicy implements CountingPolicy {
    private final double baseFraction;
    private final Bounds bounds;
    private final int perNode;

    public QueueAwarePolicy(double baseFraction, int min, int max, int perNode) {
        this.baseFraction = EcoSelection.clampFraction(baseFraction);
        this.bounds = new Bounds(min, max);
        this.perNode = perNode <= 0 ? 1 : perNode;
    }

    @Override
    public String name() {
        return PolicyType.QUEUE_AWARE_V1.policyName();
    }

    @Override
    public int performanceNodes(ClusterContext context) {
        return performanceNodes(context.eligible().size(), context.clusterPerformancePods());
    }

    @Override
    public int demand(ClusterContext context) {
        return (int) Math.min(Integer.MAX_VALUE, demand(context.clusterPerformancePods()));
    }

    @Override
    public String formula(ClusterContext context, int hp) {
        int n = context.eligible().size();
        return "hp=max(round(%d x %s), ceil(%d/%d)) in [%d,%d]=%d".formatted(n, baseFraction,
                context.clusterPerformancePods(), perNode, bounds.min(), bounds.upper(n), hp);
    }

    int performanceNodes(int n, long perfPods) {
        long base = EcoSelection.roundHalfUp(n, baseFraction);
        return bounds.clamp(Math.max(base, demand(perfPods)), n);
    }

    /** {@code ceil(P / perNode)}. */
    private long demand(long perfPods) {
        return (perfPods + perNode - 1) / perNode;
    }
}
