package io.joulie.planner;

import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeSet;

/**
 * The rules composed with a counting base policy ({@link CountingPolicy}: {@code static_partition} or
 * {@code queue_aware_v1}), pure: (context, previous state) → (plan, next state, report). In order:
 * <ol>
 *   <li>the first open schedule window replaces the share and/or bounds of the base settings;</li>
 *   <li>the base policy counts the performance nodes {@code hp};</li>
 *   <li>hot nodes (own temperature or rack mean, with hysteresis: {@link HotspotRule}) are ranked first for eco,
 *       ahead of the anti-churn rank of {@link EcoSelection};</li>
 *   <li>the power budget ({@link BudgetRule}) lowers {@code hp} one node at a time, in that ranking, until the
 *       estimated sum fits, never below the performance demand the guard protects.</li>
 * </ol>
 * Without rules this is the base policy's own plan. While telemetry is unavailable the telemetry-driven rules take no
 * new decisions: the hot set and a binding budget count of the last tick with data are held.
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
        CountingPolicy policy = Policies.counting(s).orElseThrow(() ->
                new IllegalArgumentException(s.policyType().policyName() + " does not count nodes: the rules do not apply"));
        int counted = policy.performanceNodes(ctx);
        int policyHp = window.map(w -> w.bound(counted, n)).orElse(counted);

        HotspotRule.Heat heat = HotspotRule.heat(rules, ctx, previous);
        OptionalInt gpuKeep = policy.gpuPerformanceNodes(ctx);
        List<ManagedNode> ranked = rank(eligible, heat, gpuKeep.isPresent(),
                gpuKeep.isPresent() ? EcoSelection.surplusGpuServers(eligible, gpuKeep.getAsInt()) : java.util.Set.of());

        int hp = policyHp;
        Optional<RuleReport.Budget> budget = Optional.empty();
        OptionalInt heldBudget = OptionalInt.empty();
        if (rules.budgetWatts().isPresent()) {
            int floor = Math.min(policyHp, demandFloor(policy, ctx, eligible));
            Optional<BudgetRule.Outcome> outcome = new BudgetRule(rules.budgetWatts().getAsDouble(), base)
                    .apply(ctx, ranked, policyHp, floor, previous);
            if (outcome.isPresent()) {
                hp = outcome.get().hp();
                budget = Optional.of(outcome.get().budget());
                heldBudget = outcome.get().held();
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
            if (eco && heat.hot().contains(m.name())) {
                ecoByHotspot++;
                why.add(heat.why().get(m.name()) + held);
            } else if (eco && i >= n - policyHp) {
                why.add("power budget " + number(rules.budgetWatts().getAsDouble()) + " W" + held);
            }
            if (!why.isEmpty()) {
                notes.put(m.name(), String.join("; ", why));
            }
        }
        StringBuilder summary = new StringBuilder();
        window.ifPresent(w -> summary.append("window ").append(w.name()).append(", "));
        summary.append(policy.formula(ctx, counted));
        if (policyHp != counted) {
            summary.append(", window bounds -> hp=").append(policyHp);
        }
        if (budget.isPresent()) {
            summary.append(", budget ").append(budget.get().basis()).append(budget.get().met() ? " met" : " NOT met")
                    .append(" -> hp=").append(hp);
        }
        if (!heat.hot().isEmpty()) {
            summary.append(", hot ").append(heat.hot().size());
        }
        if (gpuKeep.isPresent()) {
            summary.append(", GPU eco pool first, ").append(gpuKeep.getAsInt()).append(" GPU servers kept");
        }
        Plan plan = new Plan(policy.name(), targets, hp, summary.toString(), notes);
        RuleState next = new RuleState(heat.hotNodes(), heat.hotRacks(), heldBudget);
        RuleReport report = rules.isEmpty() ? RuleReport.NONE : new RuleReport(window.map(ScheduleWindow::name),
                telemetry.status(), telemetry.detail(), new ArrayList<>(new TreeSet<>(heat.hot())), ecoByHotspot, budget);
        return new Result(plan, next, report);
    }

    /** A node with its ranking key computed once (the sort compares it n log n times). */
    private record Keyed(ManagedNode node, int group, int rank, double hotter) {
    }

    private static final Comparator<Keyed> ECO_FIRST = Comparator.comparingInt(Keyed::group)
            .thenComparingInt(Keyed::rank).thenComparingDouble(Keyed::hotter)
            .thenComparing(k -> k.node().name());

    /**
     * Eco ranking: hot nodes first (among them the hotter first); when the GPU demand is known, then the GPU servers
     * that performance-only GPU work does not need ({@code gpuFirst}), the nodes without boards, and last the GPU servers
     * it keeps (decision 193); within each, EcoSelection's anti-churn rank, then the name.
     */
    private static List<ManagedNode> rank(List<ManagedNode> eligible, HotspotRule.Heat heat, boolean gpuKnown,
                                          java.util.Set<String> gpuFirst) {
        List<Keyed> keyed = new ArrayList<>(eligible.size());
        for (ManagedNode m : eligible) {
            boolean hot = heat.hot().contains(m.name());
            keyed.add(new Keyed(m, hot ? 0 : gpuKnown ? 1 + EcoSelection.gpuGroup(m, gpuFirst) : 1, EcoSelection.rank(m),
                    hot ? -heat.celsius().getOrDefault(m.name(), 0.0) : 0));
        }
        keyed.sort(ECO_FIRST);
        List<ManagedNode> ranked = new ArrayList<>(keyed.size());
        keyed.forEach(k -> ranked.add(k.node()));
        return ranked;
    }

    /**
     * The performance demand the guard protects: nodes running performance-only pods (planning them eco
     * only starts a drain, which saves nothing) and the policy's own demand term (queue_aware_v1: {@code ceil(P / perNode)}).
     */
    static int demandFloor(CountingPolicy policy, ClusterContext ctx, List<ManagedNode> eligible) {
        long protectedNodes = eligible.stream()
                .filter(m -> m.hasPerformancePods() && m.state() != PowerState.ActiveEco).count();
        return (int) Math.min(eligible.size(), Math.max(protectedNodes, policy.demand(ctx)));
    }

    /** A number without trailing zeros: 40000, 72.5. */
    static String number(double v) {
        return BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }
}
