package io.joulie.planner;

/**
 * {@code queue_aware_v1}: hp = max(round(n × base), ceil(P / perNode)), clamped to [min, max] and then to
 * [0, n], where P counts performance-only pods cluster-wide. Nonsense bounds are normalised: min &lt; 0 → 0,
 * max ≤ 0 → n, max &lt; min → min, perNode ≤ 0 → 1.
 */
public final class QueueAwarePolicy implements PolicyModule {
    private final double baseFraction;
    private final int min;
    private final int max;
    private final int perNode;

    public QueueAwarePolicy(double baseFraction, int min, int max, int perNode) {
        this.baseFraction = EcoSelection.clampFraction(baseFraction);
        this.min = min;
        this.max = max;
        this.perNode = perNode <= 0 ? 1 : perNode;
    }

    @Override
    public String name() {
        return PolicyType.QUEUE_AWARE_V1.policyName();
    }

    @Override
    public Plan plan(ClusterContext context) {
        var eligible = context.eligible();
        int n = eligible.size();
        long p = context.clusterPerformancePods();
        int hp = performanceNodes(n, p);
        return new Plan(name(), EcoSelection.assign(eligible, hp), hp,
                "hp=max(round(%d x %s), ceil(%d/%d)) in [%d,%d]=%d".formatted(n, baseFraction, p, perNode,
                        lower(), upper(n), hp));
    }

    int performanceNodes(int n, long perfPods) {
        long base = EcoSelection.roundHalfUp(n, baseFraction);
        long demand = (perfPods + perNode - 1) / perNode;
        long hp = Math.max(base, demand);
        hp = Math.max(lower(), Math.min(upper(n), hp));
        return (int) Math.max(0, Math.min(n, hp));
    }

    private int lower() {
        return Math.max(0, min);
    }

    private int upper(int n) {
        int upper = max <= 0 ? n : max;
        return Math.max(upper, lower());
    }
}
