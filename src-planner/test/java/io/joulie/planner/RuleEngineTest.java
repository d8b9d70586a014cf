package io.joulie.planner;

import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;

import static io.joulie.planner.Fixtures.ecoNodes;
import static org.assertj.core.api.Assertions.assertThat;

/** The rules on the pure core, with a fixed clock: each rule alone and composed. */
class RuleEngineTest {
    /** Monday 2026-11-23 10:00 in Europe/Berlin. */
    static final Instant MONDAY_10 = Instant.parse("2026-11-23T09:00:00Z");
    /** Saturday 2026-11-28 10:00 in Europe/Berlin. */
    static final Instant SATURDAY_10 = Instant.parse("2026-11-28T09:00:00Z");
    static final String RACK = "example.com/rack";

    static final ScheduleWindow OFFICE = new ScheduleWindow("office-hours",
            Set.of(DayOfWeek.MONDAY, DayOfWeek.TUESDAY, DayOfWeek.WEDNESDAY, DayOfWeek.THURSDAY, DayOfWeek.FRIDAY),
            LocalTime.of(8, 0), LocalTime.of(18, 0), ZoneId.of("Europe/Berlin"),
            OptionalDouble.of(1.0), OptionalInt.empty(), OptionalInt.empty());

    static PlannerSettings settings(PolicyType type, double frac) {
        return PlannerSettings.defaults().toBuilder().policyType(type).staticHpFrac(frac).queueHpBaseFrac(frac).queueHpMin(0)
                .queueHpMax(0).performanceCapWatts(OptionalDouble.of(500)).ecoCapWatts(OptionalDouble.of(100)).build();
    }

    static PolicyRules rules(List<ScheduleWindow> windows, Double budget, PolicyRules.Hotspots hot) {
        return new PolicyRules(windows, budget == null ? OptionalDouble.empty() : OptionalDouble.of(budget), hot, RACK);
    }

    static ManagedNode node(String name, PowerState state, String rack, String... pods) {
        return new ManagedNode(name, rack == null ? Map.of() : Map.of(RACK, rack), false, state, Fixtures.T0, List.of(pods));
    }

    static ManagedNode perf(String name, String rack, String... pods) {
        return node(name, PowerState.ActivePerformance, rack, pods);
    }

    /** Telemetry from "node=watts/celsius" pairs; either part may be empty. */
    static Telemetry telemetry(String... samples) {
        Map<String, Telemetry.NodeSamples> nodes = new HashMap<>();
        for (String s : samples) {
            String[] kv = s.split("=");
            String[] v = kv[1].split("/", -1);
            nodes.put(kv[0], new Telemetry.NodeSamples(sample(v[0]), sample(v[1])));
        }
        return Telemetry.available(nodes, OptionalDouble.empty(), OptionalDouble.empty());
    }

    private static Optional<Telemetry.Sample> sample(String v) {
        return v.isEmpty() ? Optional.empty() : Optional.of(new Telemetry.Sample(Double.parseDouble(v), Duration.ofSeconds(5)));
    }

    static ClusterContext ctx(Instant now, Telemetry t, ManagedNode... nodes) {
        var sorted = new ArrayList<>(Arrays.asList(nodes));
        sorted.sort(java.util.Comparator.comparing(ManagedNode::name));
        long pods = sorted.stream().mapToLong(n -> n.performancePods().size()).sum();
        return new ClusterContext(now, sorted, pods, List.of(), List.of(), t);
    }

    static RuleEngine.Result plan(PlannerSettings s, PolicyRules r, ClusterContext c) {
        return new RuleEngine(s, r).plan(c, RuleState.INITIAL);
    }

    // ---- schedules --------------------------------------------------------------------------------

    @ParameterizedTest(name = "{0}: {1} performance")
    @CsvSource({
            "2026-11-23T09:00:00Z, 4",  // Monday 10:00 Berlin: office hours, share 1.0
            "2026-11-23T06:59:00Z, 2",  // Monday 07:59 Berlin: before the window, base share 0.5
            "2026-11-23T17:00:00Z, 2",  // Monday 18:00 Berlin: the end is exclusive
            "2026-11-28T09:00:00Z, 2",  // Saturday: not a window day
    })
    void aWindowRaisesTheShare(Instant now, int performance) {
        var c = ctx(now, Telemetry.DISABLED, perf("a", null), perf("b", null), perf("c", null), perf("d", null));

        var r = plan(settings(PolicyType.STATIC_PARTITION, 0.5), rules(List.of(OFFICE), null, null), c);

        assertThat(r.plan().performanceNodes()).isEqualTo(performance);
        assertThat(r.report().window().isPresent()).isEqualTo(performance == 4);
        assertThat(r.plan().notes().values()).allMatch(n -> n.equals("schedule 'office-hours'"));
    }

    @ParameterizedTest(name = "min {0} max {1}: {2}")
    @CsvSource({"3, , 3", "0, 1, 1", "6, , 4", "3, 2, 3", ", 0, 0", "1, 0, 1", ", , 2"})
    void aWindowSetsTheBounds(Integer min, Integer max, int expected) {
        var w = new ScheduleWindow("bounds", Set.of(DayOfWeek.MONDAY), LocalTime.MIDNIGHT, LocalTime.MIDNIGHT,
                ZoneId.of("UTC"), OptionalDouble.empty(), min == null ? OptionalInt.empty() : OptionalInt.of(min),
                max == null ? OptionalInt.empty() : OptionalInt.of(max));
        var c = ctx(MONDAY_10, Telemetry.DISABLED, perf("a", null), perf("b", null), perf("c", null), perf("d", null));
        for (PolicyType type : List.of(PolicyType.STATIC_PARTITION, PolicyType.QUEUE_AWARE_V1)) {
            var r = plan(settings(type, 0.5), rules(List.of(w), null, null), c);
            assertThat(r.plan().performanceNodes()).as(type.name()).isEqualTo(expected);
        }
    }

    // ---- power budget -----------------------------------------------------------------------------

    @ParameterizedTest(name = "budget {0} W: hp {1}, estimate {2} W, met {3}")
    @CsvSource({
            "2000, 4, 1600, true",   // fits as planned
            "1300, 3, 1300, true",   // a -> eco: 1600 - 400 + 100
            "1000, 2, 1000, true",   // a, b -> eco
            "500,  2, 1000, false",  // c and d run performance-only pods: the guard's floor, reported unmet
    })
    void aBudgetForcesEcoButStopsAtTheGuard(double budget, int hp, double estimate, boolean met) {
        var c = ctx(MONDAY_10, telemetry("a=400/", "b=400/", "c=400/", "d=400/"),
                perf("a", null), perf("b", null), perf("c", null, "ns/p1"), perf("d", null, "ns/p2"));

        var r = plan(settings(PolicyType.STATIC_PARTITION, 1.0), rules(List.of(), budget, null), c);

        var b = r.report().budget().orElseThrow();
        assertThat(r.plan().performanceNodes()).isEqualTo(hp);
        assertThat(b.estimateWatts()).isEqualTo(estimate);
        assertThat(b.met()).isEqualTo(met);
        assertThat(b.basis()).isEqualTo("measured");
        assertThat(b.ecoNodes()).isEqualTo(4 - hp);
        assertThat(r.plan().targets()).containsEntry("c", Profile.PERFORMANCE).containsEntry("d", Profile.PERFORMANCE);
        assertThat(r.next().budgetPerformanceNodes()).isEqualTo(hp < 4 ? OptionalInt.of(hp) : OptionalInt.empty());
        ecoNodes(r.plan().targets()).forEach(n -> assertThat(r.plan().notes().get(n)).isEqualTo("power budget " + (int) budget + " W"));
    }

    @Test
    void withoutTelemetryTheBudgetCountsCaps() {
        // caps: performance 500 W, eco 100 W; 4 x 500 = 2000 > 1500 -> 1600 -> 1200
        var c = ctx(MONDAY_10, Telemetry.DISABLED, perf("a", null), perf("b", null), perf("c", null), perf("d", null));

        var r = plan(settings(PolicyType.STATIC_PARTITION, 1.0), rules(List.of(), 1500.0, null), c);

        assertThat(r.plan().performanceNodes()).isEqualTo(2);
        assertThat(r.report().budget().orElseThrow()).isEqualTo(new RuleReport.Budget(1500, 1200, "caps", true, 2));
        assertThat(ecoNodes(r.plan().targets())).containsExactly("a", "b");
    }

    @Test
    void percentCapsAreEstimatedOnEachNodesHardwareGpuBoardsIncluded() {
        // default caps: performance 100 %, eco 60 %, CPU and GPU; a: 2 x 250 W packages; g: the same and 4 boards of 700 W
        NodeHardwareStatus cpu = ProfileCapsTest.gpuServer(NodeHardwareStatus.Control.POWERCAP, NodeHardwareStatus.Control.NVML);
        NodePower gpuNode = NodePower.of(cpu, 0);
        NodePower cpuNode = NodePower.of(new NodeHardwareStatus(cpu.cpu(), null, null), 0);
        var c = ctx(MONDAY_10, Telemetry.DISABLED,
                new ManagedNode("a", Map.of(), false, PowerState.ActivePerformance, Fixtures.T0, List.of(), cpuNode),
                new ManagedNode("g", Map.of(), false, PowerState.ActivePerformance, Fixtures.T0, List.of(), gpuNode),
                new ManagedNode("u", Map.of(), false, PowerState.ActivePerformance, Fixtures.T0, List.of()));
        var defaults = PlannerSettings.defaults().toBuilder().policyType(PolicyType.STATIC_PARTITION).staticHpFrac(1.0).build();

        // all performance: 500 + (500 + 2800) + 0 (u: no inventory, a percent cannot be estimated) = 3800 > 3000;
        // eco in rank order (a, g, u by name): a at 300 -> 3600; g at 300 + 1680 -> 2280
        var r = plan(defaults, rules(List.of(), 3000.0, null), c);

        assertThat(ecoNodes(r.plan().targets())).containsExactly("a", "g");
        assertThat(r.report().budget().orElseThrow()).isEqualTo(new RuleReport.Budget(3000, 2280, "caps", true, 2));
    }

    @Test
    void theBudgetEstimatesAnEcoNodeAtTheEcoCapOfItsType() {
        // a and g as above, a of type small (eco 200 W by type), g of a type without one (eco 60 %)
        NodeHardwareStatus cpu = ProfileCapsTest.gpuServer(NodeHardwareStatus.Control.POWERCAP, NodeHardwareStatus.Control.NVML);
        var c = ctx(MONDAY_10, Telemetry.DISABLED,
                new ManagedNode("a", Map.of(JoulieApi.NODE_TYPE_LABEL, "small"), false, PowerState.ActivePerformance, Fixtures.T0,
                        List.of(), NodePower.of(new NodeHardwareStatus(cpu.cpu(), null, null), 0)),
                new ManagedNode("g", Map.of(JoulieApi.NODE_TYPE_LABEL, "other"), false, PowerState.ActivePerformance, Fixtures.T0,
                        List.of(), NodePower.of(cpu, 0)));
        var s = PlannerSettings.defaults().toBuilder().policyType(PolicyType.STATIC_PARTITION).staticHpFrac(1.0)
                .ecoCapWattsByType(Map.of("small", 200.0)).build();

        // all performance: 500 + 3300 = 3800 > 3500; a eco at its type's 200 W -> 3500
        var r = plan(s, rules(List.of(), 3500.0, null), c);

        assertThat(ecoNodes(r.plan().targets())).containsExactly("a");
        assertThat(r.report().budget().orElseThrow()).isEqualTo(new RuleReport.Budget(3500, 3500, "caps", true, 1));
    }

    @Test
    void aNodeWithoutASampleCountsItsCapAndEcoNodesMayUncap() {
        // a is eco drawing 90 W; if planned performance it may draw its cap (500). b has no sample: 500.
        var c = ctx(MONDAY_10, telemetry("a=90/", "c=300/"),
                node("a", PowerState.ActiveEco, null), perf("b", null), perf("c", null));

        var r = plan(settings(PolicyType.STATIC_PARTITION, 1.0), rules(List.of(), 900.0, null), c);

        // all performance: 500 + 500 + 300 = 1300 -> a stays eco (rank 0): 90 + 500 + 300 = 890
        assertThat(ecoNodes(r.plan().targets())).containsExactly("a");
        assertThat(r.report().budget().orElseThrow().estimateWatts()).isEqualTo(890);
    }

    @Test
    void queueDemandIsAFloorForTheBudget() {
        var s = settings(PolicyType.QUEUE_AWARE_V1, 0).toBuilder().queueHpBaseFrac(1.0).queuePerfPerHpNode(1).build();
        // 3 performance-only pods pending somewhere: demand ceil(3/1) = 3 of 4 nodes
        var c = new ClusterContext(MONDAY_10, List.of(perf("a", null), perf("b", null), perf("c", null), perf("d", null)),
                3, List.of(), List.of(), Telemetry.DISABLED);

        var r = plan(s, rules(List.of(), 100.0, null), c);

        assertThat(r.plan().performanceNodes()).isEqualTo(3);
        assertThat(r.report().budget().orElseThrow().met()).isFalse();
    }

    // ---- hotspots ---------------------------------------------------------------------------------

    @Test
    void aHotRackIsChosenFirst() {
        // rack r1: a 90 °C, b 70 °C, mean 80 > 75: both hot; rack r2: c (already eco) 74, d 50.
        var c = ctx(MONDAY_10, telemetry("a=/90", "b=/70", "c=/74", "d=/50"),
                perf("a", "r1"), perf("b", "r1"), node("c", PowerState.ActiveEco, "r2"), perf("d", "r2"));

        var r = plan(settings(PolicyType.STATIC_PARTITION, 0.5), rules(List.of(), null, new PolicyRules.Hotspots(75, 5)), c);

        assertThat(ecoNodes(r.plan().targets())).containsExactly("a", "b");
        assertThat(r.plan().notes()).containsEntry("a", "hotspot: node above 75 °C")
                .containsEntry("b", "hotspot: rack r1 above 75 °C on average").doesNotContainKey("c");
        assertThat(r.report().hotNodes()).containsExactly("a", "b");
        assertThat(r.report().ecoByHotspot()).isEqualTo(2);
        assertThat(r.next().hotRacks()).containsExactly("r1");
        assertThat(r.next().hotNodes()).containsExactly("a");
    }

    @Test
    void withoutHeatTheAntiChurnRankDecides() {
        var c = ctx(MONDAY_10, telemetry("a=/60", "b=/60", "c=/60", "d=/60"),
                perf("a", "r1"), perf("b", "r1"), node("c", PowerState.ActiveEco, "r2"), perf("d", "r2"));
        var s = settings(PolicyType.STATIC_PARTITION, 0.5);

        var r = plan(s, rules(List.of(OFFICE), 100_000.0, new PolicyRules.Hotspots(75, 5)), ctx(SATURDAY_10, c.telemetry(),
                c.nodes().toArray(ManagedNode[]::new)));

        assertThat(r.plan().targets()).isEqualTo(new StaticPartitionPolicy(0.5).plan(c).targets());
        assertThat(r.plan().notes()).isEmpty();
    }

    @Test
    void theHotterNodeGoesFirstAndCoolNodesKeepTheNameOrder() {
        // b and d are hot (d hotter); a and c are cool, c warmer than a. Share 0.25: 3 eco.
        var c = ctx(MONDAY_10, telemetry("a=/40", "b=/81", "c=/70", "d=/95"),
                perf("a", null), perf("b", null), perf("c", null), perf("d", null));

        var r = plan(settings(PolicyType.STATIC_PARTITION, 0.25), rules(List.of(), null, new PolicyRules.Hotspots(80, 5)), c);
        var one = plan(settings(PolicyType.STATIC_PARTITION, 0.75), rules(List.of(), null, new PolicyRules.Hotspots(80, 5)), c);

        assertThat(ecoNodes(r.plan().targets())).containsExactly("a", "b", "d");
        assertThat(ecoNodes(one.plan().targets())).containsExactly("d");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            heats up then cools through the band        | 76 72 70 69.9 72 | true true true false false
            stays cool inside the band                   | 72 74 75 72      | false false false false
            flickering around the threshold holds       | 76 74.9 75.1 71  | true true true true
            """)
    void hysteresisKeepsNodesFromFlapping(String name, String temps, String expected) {
        var engine = new RuleEngine(settings(PolicyType.STATIC_PARTITION, 1.0),
                rules(List.of(), null, new PolicyRules.Hotspots(75, 5)));
        RuleState state = RuleState.INITIAL;
        List<Boolean> hot = new ArrayList<>();
        for (String t : temps.split(" ")) {
            var r = engine.plan(ctx(MONDAY_10, telemetry("a=/" + t, "b=/20"), perf("a", null), perf("b", null)), state);
            state = r.next();
            hot.add(r.report().hotNodes().contains("a"));
        }
        assertThat(hot).containsExactlyElementsOf(Arrays.stream(expected.split(" ")).map(Boolean::valueOf).toList());
    }

    @Test
    void aRackCoolsWithHysteresisToo() {
        var engine = new RuleEngine(settings(PolicyType.STATIC_PARTITION, 1.0),
                rules(List.of(), null, new PolicyRules.Hotspots(75, 5)));
        var r1 = engine.plan(ctx(MONDAY_10, telemetry("a=/80", "b=/72"), perf("a", "r1"), perf("b", "r1")), RuleState.INITIAL);
        var r2 = engine.plan(ctx(MONDAY_10, telemetry("a=/72", "b=/71"), perf("a", "r1"), perf("b", "r1")), r1.next());
        var r3 = engine.plan(ctx(MONDAY_10, telemetry("a=/69.5", "b=/69"), perf("a", "r1"), perf("b", "r1")), r2.next());

        assertThat(r1.next().hotRacks()).containsExactly("r1");
        assertThat(r2.next().hotRacks()).containsExactly("r1");
        assertThat(r2.report().hotNodes()).containsExactly("a", "b");
        assertThat(r3.next().hotRacks()).isEmpty();
        assertThat(r3.report().hotNodes()).isEmpty();
    }

    // ---- telemetry outages ------------------------------------------------------------------------

    @Test
    void anOutageHoldsTelemetryDecisionsWhileTheScheduleStillApplies() {
        var s = settings(PolicyType.STATIC_PARTITION, 0.5);
        var r = rules(List.of(OFFICE), 1300.0, new PolicyRules.Hotspots(75, 5));
        var engine = new RuleEngine(s, r);
        ManagedNode[] nodes = {perf("a", null), perf("b", null), perf("c", null), perf("d", null)};
        var hot = telemetry("a=400/60", "b=400/60", "c=400/60", "d=400/90");

        var before = engine.plan(ctx(MONDAY_10, hot, nodes), RuleState.INITIAL);
        var outageOffice = engine.plan(ctx(MONDAY_10, Telemetry.unavailable("unreachable"), nodes), before.next());
        var outageWeekend = engine.plan(ctx(SATURDAY_10, Telemetry.unavailable("unreachable"), nodes), outageOffice.next());
        var back = engine.plan(ctx(MONDAY_10, hot, nodes), outageWeekend.next());

        // office hours: share 1.0 -> 4 x 400 W = 1600 W > 1300 W: the hot node d goes eco
        assertThat(ecoNodes(before.plan().targets())).containsExactly("d");
        assertThat(before.next().budgetPerformanceNodes()).hasValue(3);
        // outage: the hot set and the budget's count are held, the window still applies
        assertThat(outageOffice.plan().targets()).isEqualTo(before.plan().targets());
        assertThat(outageOffice.plan().notes().get("d"))
                .isEqualTo("schedule 'office-hours'; hotspot: node above 75 °C (held: telemetry unavailable)");
        assertThat(outageOffice.report().telemetry()).isEqualTo(Telemetry.Status.UNAVAILABLE);
        assertThat(outageOffice.report().budget().orElseThrow().basis()).isEqualTo("held");
        // the weekend starts during the outage: the base share 0.5 applies, d is still first for eco
        assertThat(outageWeekend.report().window()).isEmpty();
        assertThat(ecoNodes(outageWeekend.plan().targets())).containsExactly("a", "d");
        // back: the same measurements give the same answer as before the outage
        assertThat(back.plan().targets()).isEqualTo(before.plan().targets());
        assertThat(back.report().budget().orElseThrow().basis()).isEqualTo("measured");
    }

    @Test
    void anOutageWithoutEarlierDecisionsLeavesTheBasePolicy() {
        var r = plan(settings(PolicyType.STATIC_PARTITION, 0.5), rules(List.of(OFFICE), 100.0, new PolicyRules.Hotspots(75, 5)),
                ctx(MONDAY_10, Telemetry.unavailable("stale"), perf("a", null), perf("b", null)));

        assertThat(r.plan().performanceNodes()).isEqualTo(2);
        assertThat(r.report().budget()).isEmpty();
        assertThat(r.report().telemetryDetail()).isEqualTo("stale");
    }

    // ---- composition and reasons --------------------------------------------------------------------

    @Test
    void aWindowRaisesTheShareTheBudgetTrimsItAndTheHotNodeGoesFirst() {
        var c = ctx(MONDAY_10, telemetry("a=400/60", "b=400/60", "c=400/88", "d=400/60"),
                perf("a", null), perf("b", null), perf("c", null), perf("d", null));
        var planner = new Planner(settings(PolicyType.STATIC_PARTITION, 0.25),
                rules(List.of(OFFICE), 1300.0, new PolicyRules.Hotspots(75, 5)));

        var tick = planner.plan(c);

        assertThat(tick.plan().performanceNodes()).isEqualTo(3);
        assertThat(ecoNodes(tick.plan().targets())).containsExactly("c");
        var reasons = new HashMap<String, String>();
        tick.transitions().forEach(t -> reasons.put(t.node(), t.reason()));
        assertThat(reasons).containsEntry("c", "selected for eco by static_partition; " + StateGuard.settling(PlannerSettings.defaults().settleTime()) + "; schedule 'office-hours'; hotspot: node above 75 °C")
                .containsEntry("a", "selected for performance by static_partition; schedule 'office-hours'");
        assertThat(planner.ruleState().hotNodes()).containsExactly("c");
        assertThat(tick.rules().budget().orElseThrow().ecoNodes()).isEqualTo(1);
    }

    @Test
    void theRulesDoNotApplyToRuleSwap() {
        var planner = new Planner(settings(PolicyType.RULE_SWAP_V1, 0.5), rules(List.of(OFFICE), 1.0, null));
        var c = ctx(MONDAY_10, Telemetry.DISABLED, perf("a", null), perf("b", null), perf("c", null));

        assertThat(planner.plan(c).plan().targets()).isEqualTo(new RuleSwapPolicy(Duration.ofMinutes(1)).plan(c).targets());
        assertThat(planner.plan(c).rules()).isEqualTo(RuleReport.NONE);
    }

    @Test
    void aReplacingPlannerContinuesTheHysteresis() {
        var r = rules(List.of(), null, new PolicyRules.Hotspots(75, 5));
        var first = new Planner(settings(PolicyType.STATIC_PARTITION, 0.5), r);
        first.plan(ctx(MONDAY_10, telemetry("a=/80", "b=/20"), perf("a", null), perf("b", null)));

        var second = Planner.replacing(first, settings(PolicyType.STATIC_PARTITION, 0.5), r);
        var tick = second.plan(ctx(MONDAY_10, telemetry("a=/20", "b=/72"), perf("a", null), perf("b", null)));

        assertThat(tick.rules().hotNodes()).isEmpty();
        assertThat(second.ruleState().hotNodes()).isEmpty();
        var third = second.plan(ctx(MONDAY_10, telemetry("a=/73", "b=/20"), perf("a", null), perf("b", null)));
        assertThat(third.rules().hotNodes()).isEmpty();
    }

    @Test
    void aChangedHotspotRuleStartsFresh() {
        var first = new Planner(settings(PolicyType.STATIC_PARTITION, 0.5), rules(List.of(), null, new PolicyRules.Hotspots(75, 5)));
        first.plan(ctx(MONDAY_10, telemetry("a=/80", "b=/20"), perf("a", null), perf("b", null)));
        var kept = Planner.replacing(first, settings(PolicyType.STATIC_PARTITION, 0.4), first.rules());
        var fresh = Planner.replacing(first, settings(PolicyType.STATIC_PARTITION, 0.5), rules(List.of(), null, new PolicyRules.Hotspots(90, 5)));

        assertThat(first.ruleState().hotNodes()).containsExactly("a");
        assertThat(kept.ruleState().hotNodes()).containsExactly("a");
        assertThat(fresh.ruleState().hotNodes()).isEmpty();
    }

    @Test
    void withoutRulesTheCountingPolicysOwnPlanComesOut() {
        var nodes = List.of(perf("a", null), perf("b", "ns/p"), perf("c", null), perf("d", null), perf("e", null));
        for (PolicyType type : List.of(PolicyType.STATIC_PARTITION, PolicyType.QUEUE_AWARE_V1)) {
            var s = settings(type, 0.4).toBuilder().queuePerfPerHpNode(1).build();
            var c = new ClusterContext(MONDAY_10, nodes, 3);
            CountingPolicy policy = Policies.counting(s).orElseThrow();

            var r = new RuleEngine(s, PolicyRules.NONE).plan(c, RuleState.INITIAL);

            assertThat(r.plan()).as(type.name()).isEqualTo(policy.plan(c));
            assertThat(r.report()).isEqualTo(RuleReport.NONE);
            assertThat(r.next()).isEqualTo(RuleState.INITIAL);
        }
    }
}
