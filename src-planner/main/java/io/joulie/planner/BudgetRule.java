package io.joulie.planner;

import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;

import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * The cluster power budget: lowers {@code hp} one node at a time, in the eco ranking, until the estimated sum of the
 * managed nodes' power fits, never below the performance demand the guard protects. The estimate is measured where a
 * fresh sample exists, and otherwise what the profile's caps allow on the node: its CPU cap (watts, or the percent of
 * its packages' maxima) plus, on a node with GPU boards, their cap (watts per board, or the percent of their maxima),
 * never more than the hardware's maxima its NodeHardware gives. A node whose cap is a percent of maxima not known yet
 * (no NodeHardware) and which has no sample counts nothing. While telemetry is unavailable no new decision is taken: a
 * binding count of the last tick with data is held.
 */
final class BudgetRule {
    /** The count after the budget, its verdict, and the binding count to hold while telemetry is out. */
    record Outcome(int hp, RuleReport.Budget budget, OptionalInt held) {
    }

    private final double limitWatts;
    private final PlannerSettings caps;

    BudgetRule(double limitWatts, PlannerSettings caps) {
        this.limitWatts = limitWatts;
        this.caps = caps;
    }

    /**
     * @param ranked the eligible nodes, the first eco candidate first
     * @param hp     the count the policy and the schedule asked for
     * @param floor  the performance demand the budget must not cut into
     * @return empty while telemetry is unavailable and no count is held
     */
    Optional<Outcome> apply(ClusterContext ctx, List<ManagedNode> ranked, int hp, int floor, RuleState previous) {
        Telemetry telemetry = ctx.telemetry();
        int n = ranked.size();
        if (telemetry.status() == Telemetry.Status.UNAVAILABLE) {
            OptionalInt held = previous.budgetPerformanceNodes();
            if (held.isEmpty()) {
                return Optional.empty();
            }
            int kept = Math.max(floor, Math.min(hp, held.getAsInt()));
            return Optional.of(new Outcome(kept, new RuleReport.Budget(limitWatts, Double.NaN, "held", true, hp - kept), held));
        }
        double estimate = fixed(ctx.nodes(), telemetry);
        int eco = n - hp;
        for (int i = 0; i < n; i++) {
            estimate += watts(ranked.get(i), i < eco ? Profile.ECO : Profile.PERFORMANCE, telemetry);
        }
        int lowered = hp;
        while (estimate > limitWatts && lowered > floor) {
            ManagedNode next = ranked.get(n - lowered);
            estimate += watts(next, Profile.ECO, telemetry) - watts(next, Profile.PERFORMANCE, telemetry);
            lowered--;
        }
        boolean measured = telemetry.live() && ranked.stream().anyMatch(m -> telemetry.power(m.name()).isPresent());
        return Optional.of(new Outcome(lowered, new RuleReport.Budget(limitWatts, estimate, measured ? "measured" : "caps",
                estimate <= limitWatts, hp - lowered), lowered < hp ? OptionalInt.of(lowered) : OptionalInt.empty()));
    }

    /** A node's estimated draw under {@code target}: measured where a fresh sample exists, the profile's caps otherwise. */
    private double watts(ManagedNode m, Profile target, Telemetry telemetry) {
        boolean ecoEffective = target == Profile.ECO && (m.state() == PowerState.ActiveEco || !m.hasPerformancePods());
        var sample = telemetry.live() ? telemetry.power(m.name()) : Optional.<Telemetry.Sample>empty();
        OptionalDouble eco = caps.caps(Profile.ECO, m.labels()).watts(m.power());
        OptionalDouble performance = caps.caps(Profile.PERFORMANCE, m.labels()).watts(m.power());
        if (ecoEffective) {
            return sample.map(x -> eco.isPresent() ? Math.min(x.value(), eco.getAsDouble()) : x.value()).orElse(eco.orElse(0));
        }
        // A node not running uncapped now may draw up to the performance cap once it is.
        boolean uncappedNow = m.state() != PowerState.ActiveEco;
        return uncappedNow ? sample.map(Telemetry.Sample::value).orElse(performance.orElse(0)) : performance.orElse(0);
    }

    /** Cordoned nodes keep their state: their draw is fixed this tick. */
    private double fixed(List<ManagedNode> nodes, Telemetry telemetry) {
        double sum = 0;
        for (ManagedNode m : nodes) {
            if (m.cordoned()) {
                sum += watts(m, m.state() == PowerState.ActiveEco ? Profile.ECO : Profile.PERFORMANCE, telemetry);
            }
        }
        return sum;
    }
}
