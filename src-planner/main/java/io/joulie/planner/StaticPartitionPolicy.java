package io.joulie.planner;

/** {@code static_partition}: hp = round(n × frac), frac clamped to [0, 1]. */
public final class StaticPartitionPolicy implements CountingPolicy {
    private final double fraction;

    public StaticPartitionPolicy(double fraction) {
        this.fraction = EcoSelection.clampFraction(fraction);
    }

    @Override
    public String name() {
        return PolicyType.STATIC_PARTITION.policyName();
    }

    @Override
    public int performanceNodes(ClusterContext context) {
        return EcoSelection.roundHalfUp(context.eligible().size(), fraction);
    }

    @Override
    public String formula(ClusterContext context, int hp) {
        return "hp=round(%d x %s)=%d".formatted(context.eligible().size(), fraction, hp);
    }
}
