package io.joulie.planner;

import io.joulie.api.v1alpha1.NodePowerProfileSpec.CpuPower;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.GpuPower;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static io.joulie.api.v1alpha1.PowerState.ActiveEco;
import static io.joulie.api.v1alpha1.PowerState.ActivePerformance;
import static io.joulie.api.v1alpha1.PowerState.DrainingPerformance;
import static io.joulie.planner.Fixtures.T0;
import static io.joulie.planner.Fixtures.context;
import static io.joulie.planner.Fixtures.cordoned;
import static io.joulie.planner.Fixtures.draining;
import static io.joulie.planner.Fixtures.eco;
import static io.joulie.planner.Fixtures.perf;
import static io.joulie.planner.Fixtures.perfNodes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class PlannerTest {

    private static PlannerSettings settings(PolicyType type, double staticFrac) {
        return PlannerSettings.defaults().toBuilder().policyType(type).staticHpFrac(staticFrac).queueHpMax(5).build();
    }

    private static Map<String, Transition> byNode(Planner.TickPlan tick) {
        return tick.transitions().stream().collect(Collectors.toMap(Transition::node, Function.identity()));
    }

    @Test
    void cordonedNodesAreFrozenAndNotCounted() {
        // 5 nodes, 2 cordoned (one eco, one performance with pods): n = 3 -> round(1.8) = 2 performance
        var ctx = context(List.of(perf("a"), cordoned(eco("b")), perf("c"), cordoned(perf("d", "ns/p")), perf("e")), 1);
        var tick = new Planner(settings(PolicyType.STATIC_PARTITION, 0.6)).plan(ctx);

        assertThat(tick.plan().performanceNodes()).isEqualTo(2);
        assertThat(byNode(tick)).containsOnlyKeys("a", "c", "e");
        assertThat(tick.transitions()).extracting(Transition::requested)
                .containsExactly(ActiveEco, ActivePerformance, ActivePerformance);
        assertThat(tick.assignments(settings(PolicyType.STATIC_PARTITION, 0.6)))
                .extracting(NodeAssignment::node).doesNotContain("b", "d");
    }

    @Test
    void aCordonedDrainingNodeIsNotEscalated() {
        var s = settings(PolicyType.STATIC_PARTITION, 0.0).toBuilder().escalation(Escalation.FORCE)
                .downgradeTimeout(Duration.ZERO).build();
        var ctx = new ClusterContext(T0.plus(Duration.ofDays(1)),
                List.of(cordoned(draining("a", "ns/p")), perf("b")), 1);

        var tick = new Planner(s).plan(ctx);

        assertThat(tick.transitions()).extracting(Transition::node).containsExactly("b");
    }

    @Test
    void releasedNodesPassThrough() {
        var ctx = new ClusterContext(T0, List.of(perf("a")), 0, List.of("gone-1", "unlabelled-2"));
        var tick = new Planner(settings(PolicyType.STATIC_PARTITION, 1.0)).plan(ctx);

        assertThat(tick.released()).containsExactly("gone-1", "unlabelled-2");
        assertThat(tick.transitions()).extracting(Transition::node).containsExactly("a");
    }

    @Test
    void nodesWithoutATargetAreSkipped() {
        PolicyModule partial = new PolicyModule() {
            @Override
            public String name() {
                return "partial";
            }

            @Override
            public Plan plan(ClusterContext context) {
                return new Plan(name(), Map.of("a", Profile.ECO), 0, "only a");
            }
        };
        var tick = new Planner(settings(PolicyType.STATIC_PARTITION, 0.5), partial).plan(context(perf("a"), perf("b")));

        assertThat(tick.transitions()).extracting(Transition::node).containsExactly("a");
        assertThat(tick.transitions().getFirst().reason()).contains("partial");
    }

    static Stream<Arguments> reassignmentTables() {
        return Stream.of(
                // nodes, static fraction, expected reassignments
                arguments(List.of(perf("a"), perf("b")), 1.0, 0L),                  // steady
                arguments(List.of(perf("a"), perf("b")), 0.5, 1L),                  // a: perf -> eco
                arguments(List.of(perf("a"), perf("b")), 0.0, 2L),
                arguments(List.of(eco("a"), eco("b")), 1.0, 2L),                    // eco -> perf
                arguments(List.of(eco("a"), eco("b")), 0.0, 0L),
                arguments(List.of(draining("a", "ns/p"), perf("b")), 0.5, 0L),      // still heading eco
                arguments(List.of(draining("a", "ns/p"), perf("b")), 1.0, 1L),      // drain called off
                arguments(List.of(draining("a"), eco("b"), perf("c", "ns/q")), 0.34, 0L),
                arguments(List.of(draining("a"), eco("b"), perf("c", "ns/q")), 1.0, 2L),
                arguments(List.of(draining("a"), eco("b"), perf("c", "ns/q")), 0.0, 1L),
                arguments(List.of(cordoned(eco("a")), perf("b")), 1.0, 0L)          // frozen nodes never count
        );
    }

    @ParameterizedTest(name = "[{index}] {0} at {1} -> {2} reassignments")
    @MethodSource("reassignmentTables")
    void reassignmentsCountNodesSentElsewhere(List<ManagedNode> nodes, double frac, long expected) {
        var tick = new Planner(settings(PolicyType.STATIC_PARTITION, frac)).plan(context(nodes, 0));

        assertThat(tick.reassignments()).isEqualTo(expected);
    }

    @Test
    void assignmentsCarryProfileCapLabelAndPolicy() {
        var s = settings(PolicyType.STATIC_PARTITION, 0.34);
        // 3 nodes, hp 1: a (eco) stays eco, b (pods) stays performance... c drained last tick, commits eco now
        var ctx = new ClusterContext(T0.plusSeconds(60), List.of(eco("a"), perf("b", "ns/p"), draining("c")), 1);
        var tick = new Planner(s).plan(ctx);
        Map<String, NodeAssignment> a = tick.assignments(s).stream()
                .collect(Collectors.toMap(NodeAssignment::node, Function.identity()));

        assertThat(a.get("a")).extracting(NodeAssignment::state, NodeAssignment::profile, NodeAssignment::cpu,
                NodeAssignment::labelValue, NodeAssignment::policyName)
                .containsExactly(ActiveEco, Profile.ECO, CpuPower.percent(60), "eco", "static_partition");
        assertThat(a.get("b")).extracting(NodeAssignment::state, NodeAssignment::profile, NodeAssignment::cpu,
                NodeAssignment::labelValue)
                .containsExactly(ActivePerformance, Profile.PERFORMANCE, CpuPower.percent(100), "performance");
        assertThat(a.get("c")).extracting(NodeAssignment::state, NodeAssignment::cpu, NodeAssignment::labelValue)
                .containsExactly(ActiveEco, CpuPower.percent(60), "eco");
        assertThat(a.values()).as("no GPU cap for nodes without boards").allSatisfy(x -> assertThat(x.gpu()).isNull());
        assertThat(a.get("c").since()).isEqualTo(ctx.now());
    }

    @Test
    void aGpuNodeGetsItsProfilesGpuCapAndWattsOverrideThePercent() {
        var s = settings(PolicyType.STATIC_PARTITION, 0.0).toBuilder().ecoCapWatts(java.util.OptionalDouble.of(150)).build();
        NodePower gpus = NodePower.of(null, 4);
        ManagedNode node = new ManagedNode("g", Map.of(), false, ActiveEco, Fixtures.T0, List.of(), gpus);
        NodeAssignment a = new Planner(s).plan(context(List.of(node), 0)).assignments(s).getFirst();

        assertThat(a.cpu()).isEqualTo(CpuPower.watts(150));
        assertThat(a.gpu()).isEqualTo(GpuPower.percent(60));
    }

    @Test
    void aDrainingNodeKeepsThePerformanceCapAndAdvertisesDraining() {
        var s = settings(PolicyType.STATIC_PARTITION, 0.0);
        var tick = new Planner(s).plan(context(List.of(perf("a", "ns/p1", "ns/p2")), 2));
        NodeAssignment a = tick.assignments(s).getFirst();

        assertThat(a.state()).isEqualTo(DrainingPerformance);
        assertThat(a.profile()).isEqualTo(Profile.PERFORMANCE);
        assertThat(a.cpu()).isEqualTo(CpuPower.percent(100));
        assertThat(a.labelValue()).isEqualTo("draining-performance");
        assertThat(a.reason()).isEqualTo("draining 2 performance-only pods");
    }

    @ParameterizedTest(name = "{0} builds {1}")
    @CsvSource({
            "STATIC_PARTITION, static_partition",
            "QUEUE_AWARE_V1, queue_aware_v1",
            "RULE_SWAP_V1, rule_swap_v1",
    })
    void policiesFollowTheSettings(PolicyType type, String name) {
        var planner = new Planner(settings(type, 0.5));

        assertThat(planner.policy().name()).isEqualTo(name);
        assertThat(planner.plan(context(perfNodes(3), 0)).plan().policyName()).isEqualTo(name);
    }

    @Test
    void policiesPassTheirParameters() {
        var s = PlannerSettings.defaults().toBuilder().policyType(PolicyType.QUEUE_AWARE_V1).staticHpFrac(0.0)
                .queueHpBaseFrac(0.2).queueHpMin(2).queueHpMax(4).queuePerfPerHpNode(5).build();
        var policy = Policies.create(s);

        // 10 nodes: base round(2.0) = 2, min 2, max 4, perNode 5
        assertThat(policy.plan(context(perfNodes(10), 0)).performanceNodes()).isEqualTo(2);
        assertThat(policy.plan(context(perfNodes(10), 16)).performanceNodes()).isEqualTo(4);   // ceil(16/5) = 4
        assertThat(policy.plan(context(perfNodes(10), 100)).performanceNodes()).isEqualTo(4);  // max
        assertThat(Policies.create(s.withPolicy(PolicyType.STATIC_PARTITION)).plan(context(perfNodes(10), 0))
                .performanceNodes()).isZero();
    }

    /** Applies a tick's transitions to the nodes, as the actuation and the next snapshot would. */
    private static List<ManagedNode> apply(List<ManagedNode> nodes, Planner.TickPlan tick) {
        Map<String, Transition> t = byNode(tick);
        List<ManagedNode> out = new ArrayList<>();
        for (ManagedNode n : nodes) {
            Transition tr = t.get(n.name());
            out.add(tr == null ? n : new ManagedNode(n.name(), n.labels(), n.cordoned(), tr.to(), tr.since(), n.performancePods()));
        }
        return out;
    }

    @ParameterizedTest(name = "static {0}: converges and then plans no change")
    @CsvSource({"0.0", "0.2", "0.5", "0.6", "1.0"})
    void aSteadyClusterPlansNoChange(double frac) {
        var planner = new Planner(settings(PolicyType.STATIC_PARTITION, frac));
        List<ManagedNode> nodes = List.of(perf("a"), eco("b"), perf("c", "ns/p"), draining("d"), perf("e"), eco("f"));

        Planner.TickPlan first = planner.plan(context(nodes, 1));
        nodes = apply(nodes, first);
        Planner.TickPlan second = planner.plan(context(nodes, 1));
        nodes = apply(nodes, second);
        Planner.TickPlan third = planner.plan(context(nodes, 1));

        assertThat(third.transitions()).allSatisfy(tr -> {
            assertThat(tr.changed()).as(tr.node()).isFalse();
            assertThat(tr.outcome()).as(tr.node()).isIn(Outcome.STEADY, Outcome.BLOCKED);
        });
        assertThat(third.reassignments()).isZero();
        assertThat(third.plan().targets()).isEqualTo(second.plan().targets());
    }

    @Test
    void anAlreadyBalancedClusterIsLeftAlone() {
        // 6 nodes at 0.5: 3 eco already, 3 performance: nothing moves
        var planner = new Planner(settings(PolicyType.STATIC_PARTITION, 0.5));
        var nodes = List.of(eco("a"), perf("b", "ns/p"), eco("c"), perf("d"), eco("e"), perf("f"));

        var tick = planner.plan(context(nodes, 1));

        assertThat(tick.transitions()).extracting(Transition::outcome).containsOnly(Outcome.STEADY);
        assertThat(tick.transitions()).extracting(Transition::since).containsOnly(T0);
        assertThat(tick.reassignments()).isZero();
    }

    @Test
    void queueGrowthBringsEcoNodesBackAtOnce() {
        var s = settings(PolicyType.QUEUE_AWARE_V1, 0.5);   // base 0.6, min 1, max 5, perNode 10
        var nodes = List.of(perf("a"), perf("b"), perf("c"), eco("d"), eco("e"));
        var planner = new Planner(s);

        assertThat(planner.plan(context(nodes, 0)).reassignments()).isZero();

        var tick = planner.plan(context(nodes, 50));   // ceil(50/10) = 5
        assertThat(tick.plan().performanceNodes()).isEqualTo(5);
        assertThat(byNode(tick).get("d").to()).isEqualTo(ActivePerformance);
        assertThat(byNode(tick).get("e").outcome()).isEqualTo(Outcome.COMPLETED);
        assertThat(tick.reassignments()).isEqualTo(2);
    }

    @Test
    void transitionsFollowNodeOrder() {
        var tick = new Planner(settings(PolicyType.STATIC_PARTITION, 0.5)).plan(context(perfNodes(4), 0));

        assertThat(tick.transitions()).extracting(Transition::node).containsExactly("n01", "n02", "n03", "n04");
        assertThat(byNode(tick).values().stream().filter(t -> t.to() == PowerState.DrainingPerformance)).hasSize(2);
    }

    @Test
    void atMostTheLimitOfNodesChangeStateRaisesFirstRescuesAlways() {
        var s = settings(PolicyType.STATIC_PARTITION, 0.5).toBuilder().maxTransitionsPerTick(2).build();
        // a, b planned eco; c, d planned back up; e is eco with a performance-only pod on it (a rescue)
        Map<String, Profile> targets = Map.of("a", Profile.ECO, "b", Profile.ECO, "c", Profile.PERFORMANCE,
                "d", Profile.PERFORMANCE, "e", Profile.ECO);
        PolicyModule fixed = new PolicyModule() {
            @Override
            public String name() {
                return "fixed";
            }

            @Override
            public Plan plan(ClusterContext context) {
                return new Plan("fixed", targets, 2, "fixed");
            }
        };
        var ctx = context(List.of(perf("a"), perf("b"), eco("c"), eco("d"), eco("e", "hpc/p")), 1);

        Map<String, Transition> t = byNode(new Planner(s, fixed).plan(ctx));

        assertThat(t.get("e").outcome()).as("a rescue is never deferred").isEqualTo(Outcome.RESCUED);
        assertThat(t.get("c").to()).as("then raises, in node order").isEqualTo(ActivePerformance);
        for (String n : List.of("a", "b", "d")) {
            assertThat(t.get(n).outcome()).as(n).isEqualTo(Outcome.DEFERRED);
            assertThat(t.get(n).to()).as(n).isEqualTo(t.get(n).from());
            assertThat(t.get(n).since()).isEqualTo(T0);
            assertThat(t.get(n).reason()).startsWith("deferred: at most 2 nodes change state per 1m");
        }
        assertThat(t.get("d").label()).as("a deferred eco node keeps its label").isEqualTo("eco");
    }

    @Test
    void belowTheLimitNothingIsDeferred() {
        var s = settings(PolicyType.STATIC_PARTITION, 0.0).toBuilder().maxTransitionsPerTick(4).build();
        var tick = new Planner(s).plan(context(perfNodes(4), 0));

        assertThat(tick.transitions()).allSatisfy(x -> assertThat(x.to()).isEqualTo(DrainingPerformance));
    }

    @Test
    void theRecheckRunsTheGuardAloneForTheNodesGiven() {
        var s = settings(PolicyType.STATIC_PARTITION, 1.0);
        var ctx = context(eco("e", "hpc/p"), perf("p"), draining("d"));

        var tick = new Planner(s).recheck(new ClusterContext(T0.plusSeconds(60), ctx.nodes(), 1), "static_partition", Map.of());

        Map<String, Transition> t = byNode(tick);
        assertThat(t.get("e").outcome()).as("no plan: each node heads where its state says").isEqualTo(Outcome.RESCUED);
        assertThat(t.get("d").to()).isEqualTo(ActiveEco);
        assertThat(t.get("p").outcome()).isEqualTo(Outcome.STEADY);
        assertThat(tick.released()).isEmpty();

        // the last plan wants d performance (its write failed): a recheck raises no node, that waits for the next tick;
        // but e, whose performance-only pod runs under the eco cap, goes up at once
        var again = new Planner(s).recheck(new ClusterContext(T0.plusSeconds(60), ctx.nodes(), 1), "static_partition",
                Map.of("d", Profile.PERFORMANCE, "e", Profile.PERFORMANCE));
        assertThat(byNode(again).get("d").outcome()).isEqualTo(Outcome.DEFERRED);
        assertThat(byNode(again).get("d").to()).isEqualTo(DrainingPerformance);
        assertThat(byNode(again).get("e").to()).isEqualTo(ActivePerformance);
        assertThat(byNode(again).get("e").outcome()).isEqualTo(Outcome.RESCUED);
    }

    @Test
    void aRecheckActsOnRescuesCommitsAndLabelsOnlyNeverStartingADrainNorARaise() {
        var s = settings(PolicyType.STATIC_PARTITION, 0.5);
        ManagedNode quiet = draining("commits"); // drained since T0, no pod: past its settle time a minute later
        var nodes = List.of(perf("drains"), eco("raises"), draining("back-up"), eco("rescued", "hpc/p"), quiet,
                perf("stays"));
        Map<String, Profile> targets = Map.of("drains", Profile.ECO, "raises", Profile.PERFORMANCE, "back-up",
                Profile.PERFORMANCE, "rescued", Profile.ECO, "commits", Profile.ECO, "stays", Profile.PERFORMANCE);
        Planner planner = new Planner(s);

        Map<String, Transition> t = byNode(planner.recheck(new ClusterContext(T0.plusSeconds(60), nodes, 1), "p", targets));

        // what a tick would do with the same targets: every one of them moves but "stays"
        Map<String, Transition> tick = new java.util.HashMap<>();
        nodes.forEach(n -> tick.put(n.name(), planner.guard().check(n, targets.get(n.name()) == Profile.ECO ? ActiveEco
                : ActivePerformance, "p", T0.plusSeconds(60))));
        assertThat(tick.values().stream().filter(Transition::changed).map(Transition::node).sorted())
                .containsExactly("back-up", "commits", "drains", "raises", "rescued");

        assertThat(t.values().stream().filter(Transition::changed).map(Transition::node).sorted())
                .as("a recheck moves only the rescue and the commit").containsExactly("commits", "rescued");
        assertThat(t.get("rescued").outcome()).isEqualTo(Outcome.RESCUED);
        assertThat(t.get("commits").to()).isEqualTo(ActiveEco);
        for (String n : List.of("drains", "raises", "back-up")) {
            assertThat(t.get(n).outcome()).as(n).isEqualTo(Outcome.DEFERRED);
            assertThat(t.get(n).to()).as(n).isEqualTo(t.get(n).from());
        }
        assertThat(t.get("stays").outcome()).isEqualTo(Outcome.STEADY);
    }

    @Test
    void theTransitionBudgetIsSharedByTicksAndRechecksAndRefillsOverTheInterval() {
        var s = settings(PolicyType.STATIC_PARTITION, 0.0).toBuilder().maxTransitionsPerTick(2).build();
        Planner planner = new Planner(s);

        var first = planner.plan(context(perfNodes(4), 0));
        assertThat(first.transitions()).filteredOn(Transition::changed).hasSize(2);

        // ten seconds later, two quiet drains could commit: the budget is spent, a sixth of it back
        var drained = List.of(draining("d1"), draining("d2"));
        var recheck = planner.recheck(new ClusterContext(T0.plusSeconds(10), drained, 0), "static_partition",
                Map.of("d1", Profile.ECO, "d2", Profile.ECO));
        assertThat(recheck.transitions()).allSatisfy(t -> assertThat(t.outcome()).isEqualTo(Outcome.DEFERRED));
        // a rescue always goes, budget or not; so does the raise of a node with a pod under its eco cap
        var rescue = planner.recheck(new ClusterContext(T0.plusSeconds(10), List.of(eco("e", "hpc/p"), eco("f", "hpc/q")), 2),
                "static_partition", Map.of("f", Profile.PERFORMANCE));
        assertThat(rescue.transitions()).extracting(Transition::outcome).containsExactly(Outcome.RESCUED, Outcome.RESCUED);
        assertThat(rescue.transitions().get(1).to()).isEqualTo(ActivePerformance);

        // 35 s after the rescue, which spent what was left: 2 × 35/60 of the budget back, one change
        var half = planner.recheck(new ClusterContext(T0.plusSeconds(45), drained, 0), "static_partition",
                Map.of("d1", Profile.ECO, "d2", Profile.ECO));
        assertThat(half.transitions()).extracting(Transition::outcome).containsExactly(Outcome.COMPLETED, Outcome.DEFERRED);

        // a tick one interval after the first: the budget refilled, but only up to the limit
        var later = planner.plan(new ClusterContext(T0.plus(Duration.ofMinutes(5)), perfNodes(4), 0));
        assertThat(later.transitions()).filteredOn(Transition::changed).hasSize(2);
    }

    @Test
    void aMoveWhoseCapLandedAlreadyIsFinishedWithoutTheBudget() {
        var s = settings(PolicyType.STATIC_PARTITION, 0.0).toBuilder().maxTransitionsPerTick(2).build();
        Planner planner = new Planner(s);
        assertThat(planner.plan(context(perfNodes(4), 0)).transitions()).filteredOn(Transition::changed).hasSize(2);

        // two quiet drains ten seconds later, the budget spent: "landed" has the eco cap asked already (a commit whose
        // status write failed), "waits" still asks the performance cap
        ProfileCaps eco = s.caps(Profile.ECO, Map.of());
        ManagedNode landed = draining("landed").withCap(new NodeCap(Profile.ECO, eco.cpu(), null, 3, AgentReport.NONE));
        ManagedNode waits = draining("waits").withCap(new NodeCap(Profile.PERFORMANCE, s.caps(Profile.PERFORMANCE, Map.of()).cpu(),
                null, 2, AgentReport.NONE));
        Map<String, Transition> t = byNode(planner.recheck(new ClusterContext(T0.plusSeconds(10), List.of(landed, waits), 0),
                "static_partition", Map.of("landed", Profile.ECO, "waits", Profile.ECO)));

        assertThat(t.get("landed").outcome()).as("its eco cap is in force: only the state is left to write").isEqualTo(Outcome.COMPLETED);
        assertThat(t.get("landed").to()).isEqualTo(ActiveEco);
        assertThat(t.get("waits").outcome()).as("a new cap change waits for the budget").isEqualTo(Outcome.DEFERRED);

        // a drain changes no cap (the performance cap stays while it drains) and still draws on the budget
        var drain = planner.plan(new ClusterContext(T0.plusSeconds(11), List.of(perf("p1")), 0));
        assertThat(drain.transitions()).extracting(Transition::outcome).containsExactly(Outcome.DEFERRED);
    }

    @Test
    void aPlannerForNewSettingsKeepsTheBudgetSpent() {
        var s = settings(PolicyType.STATIC_PARTITION, 0.0).toBuilder().maxTransitionsPerTick(2).build();
        Planner planner = new Planner(s);
        assertThat(planner.plan(context(perfNodes(4), 0)).transitions()).filteredOn(Transition::changed).hasSize(2);

        Planner next = Planner.replacing(planner, s.toBuilder().staticHpFrac(0.25).build(), PolicyRules.NONE);
        var again = next.plan(new ClusterContext(T0.plusSeconds(1), perfNodes(4), 0));
        assertThat(again.transitions()).as("a policy edit does not buy a new budget").noneMatch(Transition::changed);
        assertThat(new Planner(s).plan(new ClusterContext(T0.plusSeconds(1), perfNodes(4), 0)).transitions())
                .as("a new planner (a new leader) starts full").filteredOn(Transition::changed).hasSize(2);
    }

    @Test
    void aNodeIsRescuedAtMostFiveTimesInTenMinutesTheNextRescueIsHeld() {
        var s = settings(PolicyType.STATIC_PARTITION, 0.0);
        Planner planner = new Planner(s);
        java.time.Instant at = T0;
        for (int i = 0; i < Planner.RESCUES_PER_NODE; i++) {
            at = at.plusSeconds(60);
            ManagedNode n = Fixtures.since(eco("e", "hpc/p" + i), at.minusSeconds(30)); // a new eco episode each time
            Transition t = planner.recheck(new ClusterContext(at, List.of(n), 1), "p", Map.of()).transitions().getFirst();
            assertThat(t.outcome()).as("rescue " + (i + 1)).isEqualTo(Outcome.RESCUED);
            // its write failed: the same rescue tried again does not count twice
            assertThat(planner.recheck(new ClusterContext(at.plusSeconds(1), List.of(n), 1), "p", Map.of()).transitions()
                    .getFirst().outcome()).isEqualTo(Outcome.RESCUED);
        }
        java.time.Instant sixth = at.plusSeconds(60);
        ManagedNode n = Fixtures.since(eco("e", "hpc/late"), sixth.minusSeconds(30));
        Transition held = planner.plan(new ClusterContext(sixth, List.of(n), 1)).transitions().getFirst();
        assertThat(held.outcome()).isEqualTo(Outcome.HELD);
        assertThat(held.to()).as("stays under the eco cap").isEqualTo(ActiveEco);
        assertThat(held.reason()).isEqualTo("rescue held: 5 rescues of this node within 10m already; 1 performance-only pod"
                + " under the eco cap until the window allows another");
        // another node is not held
        assertThat(planner.recheck(new ClusterContext(sixth, List.of(eco("f", "hpc/q")), 1), "p", Map.of()).transitions()
                .getFirst().outcome()).isEqualTo(Outcome.RESCUED);
        // ten minutes after the first rescue, the window allows another
        java.time.Instant free = T0.plusSeconds(60).plus(Planner.RESCUE_WINDOW).plusMillis(1);
        assertThat(planner.recheck(new ClusterContext(free, List.of(n), 1), "p", Map.of()).transitions().getFirst()
                .outcome()).isEqualTo(Outcome.RESCUED);
    }

    @Test
    void aCordonedNodeIsRescuedButNotOtherwiseMoved() {
        var s = settings(PolicyType.STATIC_PARTITION, 0.0);
        var ctx = context(List.of(cordoned(eco("e", "hpc/p")), cordoned(perf("p")), cordoned(eco("quiet"))), 1);

        Map<String, Transition> tick = byNode(new Planner(s).plan(ctx));
        assertThat(tick).containsOnlyKeys("e");
        assertThat(tick.get("e").outcome()).isEqualTo(Outcome.RESCUED);
        assertThat(tick.get("e").to().profile()).isEqualTo(Profile.PERFORMANCE);

        Map<String, Transition> recheck = byNode(new Planner(s).recheck(new ClusterContext(T0.plusSeconds(5), ctx.nodes(), 1),
                "static_partition", Map.of("p", Profile.ECO)));
        assertThat(recheck).containsOnlyKeys("e");
        assertThat(recheck.get("e").outcome()).isEqualTo(Outcome.RESCUED);
    }
}
