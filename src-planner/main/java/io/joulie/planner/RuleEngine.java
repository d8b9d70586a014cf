package io.joulie.planner;

import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;

/**
 * The rules composed with a counting base policy ({@code static_partition} or {@code queue_aware_v1}),
 * pure: (context, previous state) → (plan, next state, report). In order:
 * <ol>
 *   <li>the first open schedule window replaces the share and/or bounds of the base settings;</li>
 *   <li>the base policy counts the performance nodes {@code hp};</li>
 *   <li>hot nodes (own temperature or rack mean, with hysteresis) are ranked first for eco, ahead of the
 *       anti-churn rank of {@link EcoSelection};</li>
 *   <li>the power budget lowers {@code hp} one node at a time, in that ranking, until the estimated sum
 *       fits, never below the performance demand the guard protects.</li>
 * </ol>
 * While telemetry is unavailable the telemetry-driven rules take no new decisions: the hot set and a
 * binding budget count of the last tick with data are held.
 */
public final class RuleEngine {
    private final PlannerSettings base;
    private final PolicyRules rules;

    public RuleEngine(PlannerSettings base, PolicyRules rules) {
        this.base = base;
        this.rules = rules;
    }

    public PolicyRules rules() {
        return rules;
    }

    /** The engine's answer for one tick. */
    public record Result(Plan plan, RuleState next, RuleReport report) {
    }

    public Result plan(ClusterContext ctx, RuleState previous) {
        List<ManagedNode> eligible = ctx.eligible();
        int n = eligible.size();
        Telemetry telemetry = ctx.telemetry();
        Optional<ScheduleWindow> window = ScheduleWindow.firstOpen(rules.schedules(), ctx.now());
        PlannerSettings s = window.map(w -> w.apply(base)).orElse(base);
        int hp = baseCount(s, ctx, n);
        if (window.isPresent()) {
            ScheduleWindow w = window.get();
            int lo = Math.max(0, w.minNodes().orElse(0));
            int hi = w.maxNodes().orElse(Integer.MAX_VALUE);
            hp = clamp(hp, lo, Math.max(lo, hi)); // literal bounds: a window's maximum of 0 means no performance node
            hp = clamp(hp, 0, n);
        }
        int policyHp = hp;

        Heat heat = heat(ctx, telemetry, previous);
        List<ManagedNode> ranked = rank(eligible, heat);

        Optional<RuleReport.Budget> budget = Optional.empty();
        OptionalInt heldBudget = OptionalInt.empty();
        if (rules.budgetWatts().isPresent()) {
            int floor = Math.min(policyHp, demandFloor(s, ctx, eligible));
            double limit = rules.budgetWatts().getAsDouble();
            if (telemetry.status() == Telemetry.Status.UNAVAILABLE) {
                OptionalInt held = previous.budgetPerformanceNodes();
                if (held.isPresent()) {
                    hp = Math.max(floor, Math.min(hp, held.getAsInt()));
                    heldBudget = held;
                    budget = Optional.of(new RuleReport.Budget(limit, Double.NaN, "held", true, policyHp - hp));
                }
            } else {
                Estimator est = new Estimator(telemetry);
                double estimate = est.fixed(ctx.nodes());
                int eco = n - hp;
                for (int i = 0; i < n; i++) {
                    estimate += est.watts(ranked.get(i), i < eco ? Profile.ECO : Profile.PERFORMANCE);
                }
                while (estimate > limit && hp > floor) {
                    ManagedNode next = ranked.get(n - hp);
                    estimate += est.watts(next, Profile.ECO) - est.watts(next, Profile.PERFORMANCE);
                    hp--;
                }
                if (hp < policyHp) {
                    heldBudget = OptionalInt.of(hp);
                }
                boolean measured = telemetry.live() && eligible.stream().anyMatch(m -> telemetry.power(m.name()).isPresent());
                budget = Optional.of(new RuleReport.Budget(limit, estimate, measured ? "measured" : "caps",
                        estimate <= limit, policyHp - hp));
            }
        }

        Map<String, Profile> targets = new HashMap<>(n * 2);
        Map<String, String> notes = new HashMap<>();
        String schedule = window.map(w -> "schedule '" + w.name() + "'").orElse(null);
        String held = telemetry.status() == Telemetry.Status.UNAVAILABLE ? " (held: telemetry unavailable)" : "";
        int ecoCount = n - hp;
        int ecoByHotspot = 0;
        for (int i = 0; i < n; i++) {
            ManagedNode m = ranked.get(i);
            boolean eco = i < ecoCount;
            targets.put(m.name(), eco ? Profile.ECO : Profile.PERFORMANCE);
            List<String> why = new ArrayList<>(2);
            if (schedule != null) {
                why.add(schedule);
            }
            if (eco && heat.hot.contains(m.name())) {
                ecoByHotspot++;
                why.add(heat.why.get(m.name()) + held);
            } else if (eco && i >= n - policyHp) {
                why.add("power budget " + number(rules.budgetWatts().getAsDouble()) + " W" + held);
            }
            if (!why.isEmpty()) {
                notes.put(m.name(), String.join("; ", why));
            }
        }
        String summary = window.map(w -> "window " + w.name() + ", ").orElse("")
                + "hp=" + policyHp + " by " + s.policyType().policyName()
                + budget.map(b -> ", budget " + b.basis() + " " + (b.met() ? "met" : "NOT met") + " -> hp=").orElse("")
                + (budget.isPresent() ? String.valueOf(hp) : "")
                + (heat.hot.isEmpty() ? "" : ", hot " + heat.hot.size());
        Plan plan = new Plan(s.policyType().policyName(), targets, hp, summary, notes);
        RuleState next = new RuleState(heat.hotNodes, heat.hotRacks, heldBudget);
        RuleReport report = new RuleReport(window.map(ScheduleWindow::name), telemetry.status(), telemetry.detail(),
                new ArrayList<>(new TreeSet<>(heat.hot)), ecoByHotspot, budget);
        return new Result(plan, next, report);
    }

    /** A node with its ranking key computed once (the sort compares it n log n times). */
    private record Keyed(ManagedNode node, int group, int rank, double hotter) {
    }

    private static final Comparator<Keyed> ECO_FIRST = Comparator.comparingInt(Keyed::group)
            .thenComparingInt(Keyed::rank).thenComparingDouble(Keyed::hotter)
            .thenComparing(k -> k.node().name());

    /**
     * Eco ranking: hot nodes first (among them the hotter first), then EcoSelection's anti-churn rank,
     * then the name; cool nodes keep EcoSelection's order exactly.
     */
    private static List<ManagedNode> rank(List<ManagedNode> eligible, Heat heat) {
        List<Keyed> keyed = new ArrayList<>(eligible.size());
        for (ManagedNode m : eligible) {
            boolean hot = heat.hot.contains(m.name());
            keyed.add(new Keyed(m, hot ? 0 : 1, EcoSelection.rank(m), hot ? -heat.celsius.getOrDefault(m.name(), 0.0) : 0));
        }
        keyed.sort(ECO_FIRST);
        List<ManagedNode> ranked = new ArrayList<>(keyed.size());
        keyed.forEach(k -> ranked.add(k.node()));
        return ranked;
    }

    private static int clamp(int v, int lo, int hi) {
        return Math.max(lo, Math.min(hi, v));
    }

    static int baseCount(PlannerSettings s, ClusterContext ctx, int n) {
        if (s.policyType() == PolicyType.QUEUE_AWARE_V1) {
            return new QueueAwarePolicy(s.queueHpBaseFrac(), s.queueHpMin(), s.queueHpMax(), s.queuePerfPerHpNode())
                    .performanceNodes(n, ctx.clusterPerformancePods());
        }
        return EcoSelection.roundHalfUp(n, EcoSelection.clampFraction(s.staticHpFrac()));
    }

    /**
     * The performance demand the guard protects: nodes running performance-only pods (planning them eco
     * only starts a drain, which saves nothing) and, for queue_aware_v1, {@code ceil(P / perNode)}.
     */
    static int demandFloor(PlannerSettings s, ClusterContext ctx, List<ManagedNode> eligible) {
        long protectedNodes = eligible.stream()
                .filter(m -> m.hasPerformancePods() && m.state() != PowerState.ActiveEco).count();
        long demand = 0;
        if (s.policyType() == PolicyType.QUEUE_AWARE_V1) {
            int perNode = Math.max(1, s.queuePerfPerHpNode());
            demand = (ctx.clusterPerformancePods() + perNode - 1) / perNode;
        }
        return (int) Math.min(eligible.size(), Math.max(protectedNodes, demand));
    }

    /** Per-node power estimates: measured where a fresh sample exists, the profile's cap otherwise. */
    private final class Estimator {
        private final Telemetry telemetry;

        Estimator(Telemetry telemetry) {
            this.telemetry = telemetry;
        }

        double watts(ManagedNode m, Profile target) {
            boolean ecoEffective = target == Profile.ECO && (m.state() == PowerState.ActiveEco || !m.hasPerformancePods());
            var sample = telemetry.live() ? telemetry.power(m.name()) : Optional.<Telemetry.Sample>empty();
            if (ecoEffective) {
                return sample.map(x -> Math.min(x.value(), base.ecoCapWatts())).orElse(base.ecoCapWatts());
            }
            // A node not running uncapped now may draw up to the performance cap once it is.
            boolean uncappedNow = m.state() != PowerState.ActiveEco;
            return uncappedNow ? sample.map(Telemetry.Sample::value).orElse(base.performanceCapWatts())
                    : base.performanceCapWatts();
        }

        /** Cordoned nodes keep their state: their draw is fixed this tick. */
        double fixed(List<ManagedNode> nodes) {
            double sum = 0;
            for (ManagedNode m : nodes) {
                if (m.cordoned()) {
                    sum += watts(m, m.state() == PowerState.ActiveEco ? Profile.ECO : Profile.PERFORMANCE);
                }
            }
            return sum;
        }
    }

    /** Hot nodes this tick, why, and the hysteresis state to carry. */
    private record Heat(Set<String> hot, Map<String, String> why, Map<String, Double> celsius, Set<String> hotNodes,
                        Set<String> hotRacks) {
    }

    private Heat heat(ClusterContext ctx, Telemetry telemetry, RuleState previous) {
        PolicyRules.Hotspots h = rules.hotspots();
        if (h == null) {
            return new Heat(Set.of(), Map.of(), Map.of(), Set.of(), Set.of());
        }
        String threshold = number(h.thresholdCelsius()) + " °C";
        Set<String> hotNodes = new HashSet<>();
        Set<String> hotRacks = new HashSet<>();
        Map<String, Double> celsius = new HashMap<>();
        if (telemetry.status() == Telemetry.Status.UNAVAILABLE) {
            hotNodes.addAll(previous.hotNodes());
            hotRacks.addAll(previous.hotRacks());
        } else {
            Map<String, double[]> racks = new HashMap<>(); // rack -> {sum, count}
            for (ManagedNode m : ctx.nodes()) {
                var t = telemetry.temperature(m.name());
                boolean wasHot = previous.hotNodes().contains(m.name());
                if (t.isEmpty()) {
                    if (wasHot) {
                        hotNodes.add(m.name()); // no reading: keep what the last reading said
                    }
                    continue;
                }
                double c = t.get().value();
                celsius.put(m.name(), c);
                if (h.hot(c, wasHot)) {
                    hotNodes.add(m.name());
                }
                String rack = m.labels().get(rules.rackLabel());
                if (rack != null) {
                    double[] acc = racks.computeIfAbsent(rack, r -> new double[2]);
                    acc[0] += c;
                    acc[1]++;
                }
            }
            for (String rack : previous.hotRacks()) {
                if (!racks.containsKey(rack)) {
                    hotRacks.add(rack);
                }
            }
            racks.forEach((rack, acc) -> {
                if (h.hot(acc[0] / acc[1], previous.hotRacks().contains(rack))) {
                    hotRacks.add(rack);
                }
            });
        }
        Set<String> hot = new HashSet<>();
        Map<String, String> why = new HashMap<>();
        for (ManagedNode m : ctx.eligible()) {
            String rack = m.labels().get(rules.rackLabel());
            if (hotNodes.contains(m.name())) {
                hot.add(m.name());
                why.put(m.name(), "hotspot: node above " + threshold);
            } else if (rack != null && hotRacks.contains(rack)) {
                hot.add(m.name());
                why.put(m.name(), "hotspot: rack " + rack + " above " + threshold + " on average");
            }
        }
        return new Heat(hot, why, celsius, hotNodes, hotRacks);
    }

    /** A number without trailing zeros: 40000, 72.5. */
    static String number(double v) {
        return BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }
}
