package io.joulie.planner;

/** {@code static_partition}: hp = round(n × frac), frac clamped to [0, 1]. */
public final class StaticPartitionPolicy implements PolicyModule {
    private final double fraction;

    public StaticPartitionPolicy(double fraction) {
        this.fraction = EcoSelection.clampFraction(fraction);
    }

    @Override
    public String name() {
        return PolicyType.STATIC_PARTITION.policyName();
    }

    @Override
    public Plan plan(ClusterContext context) {
        var eligible = context.eligible();
        int hp = EcoSelection.roundHalfUp(eligible.size(), fraction);
        return new Plan(name(), EcoSelection.assign(eligible, hp), hp,
                "hp=round(%d x %s)=%d".formatted(eligible.size(), fraction, hp));
    }
}
