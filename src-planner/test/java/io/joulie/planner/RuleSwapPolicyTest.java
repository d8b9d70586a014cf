package io.joulie.planner;

import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.joulie.planner.Fixtures.compact;
import static io.joulie.planner.Fixtures.cordoned;
import static io.joulie.planner.Fixtures.eco;
import static io.joulie.planner.Fixtures.perf;
import static io.joulie.planner.Fixtures.perfNodes;
import static org.assertj.core.api.Assertions.assertThat;

class RuleSwapPolicyTest {

    /** The plan at {@code epochSeconds} scaled by the phase length in ticks, so the tables read in intervals. */
    private static Plan plan(Duration interval, long epochSeconds, List<ManagedNode> nodes) {
        return new RuleSwapPolicy(interval).plan(new ClusterContext(
                Instant.ofEpochSecond(epochSeconds * RuleSwapPolicy.PHASE_TICKS), nodes, 0));
    }

    @ParameterizedTest(name = "interval {0}s, t={1} -> phase {2}")
    @CsvSource({
            // intervalSeconds, epochSeconds, phase
            "60, 0, 0",
            "60, 59, 0",
            "60, 60, 1",
            "60, 119, 1",
            "60, 120, 0",
            "60, 1735689600, 0",  // 28928160 intervals
            "60, 1735689660, 1",
            "30, 45, 1",
            "30, 60, 0",
            "1, 7, 1",
            "1, 8, 0",
            "3600, 3599, 0",
            "3600, 3600, 1",
            "60, -1, 1",          // floor(-1/60) = -1 -> odd
            "60, -60, 1",
            "60, -61, 0",
    })
    void phaseDecidesWhichOfTheFirstTwoIsEco(long interval, long epoch, int phase) {
        var plan = plan(Duration.ofSeconds(interval), epoch, perfNodes(4));

        Map<String, String> expected = phase == 0
                ? Map.of("n01", "eco", "n02", "performance", "n03", "performance", "n04", "performance")
                : Map.of("n01", "performance", "n02", "eco", "n03", "performance", "n04", "performance");
        assertThat(compact(plan.targets())).isEqualTo(expected);
        assertThat(plan.performanceNodes()).isEqualTo(3);
        assertThat(plan.summary()).isEqualTo("phase " + phase);
        assertThat(plan.policyName()).isEqualTo("rule_swap_v1");
    }

    @ParameterizedTest(name = "{0} node(s), phase {1} -> {2} performance")
    @CsvSource({
            "0, 0, 0",
            "0, 1, 0",
            "1, 0, 0",   // the only node is eco in phase 0
            "1, 1, 1",   // and performance in phase 1
            "2, 0, 1",
            "2, 1, 1",
            "5, 0, 4",
            "5, 1, 4",
    })
    void smallClusters(int n, int phase, int hp) {
        var plan = plan(Duration.ofSeconds(60), phase * 60L, perfNodes(n));

        assertThat(plan.performanceNodes()).isEqualTo(hp);
        assertThat(plan.targets()).hasSize(n);
        assertThat(plan.targets().values().stream().filter(p -> p == Profile.PERFORMANCE).count()).isEqualTo(hp);
    }

    @Test
    void cordonedNodesAreSkippedWhenPickingTheFirstTwo() {
        var nodes = List.of(cordoned(perf("a")), perf("b"), cordoned(perf("c")), perf("d"), perf("e"));

        assertThat(compact(plan(Duration.ofSeconds(60), 0, nodes).targets()))
                .isEqualTo(Map.of("b", "eco", "d", "performance", "e", "performance"));
        assertThat(compact(plan(Duration.ofSeconds(60), 60, nodes).targets()))
                .isEqualTo(Map.of("b", "performance", "d", "eco", "e", "performance"));
    }

    @Test
    void currentStateDoesNotMatter() {
        // unlike the partition policies, rule_swap ignores anti-churn: an eco node third in line goes performance
        var nodes = List.of(perf("a"), perf("b"), eco("c"));

        assertThat(compact(plan(Duration.ofSeconds(60), 0, nodes).targets()))
                .containsEntry("a", "eco").containsEntry("c", "performance");
    }

    @ParameterizedTest(name = "interval {0} behaves as 1s")
    @CsvSource({"PT0.5S", "PT0S"})
    void subSecondIntervalsCountAsOneSecond(String interval) {
        var d = Duration.parse(interval);

        assertThat(compact(plan(d, 7, perfNodes(2)).targets())).containsEntry("n01", "performance").containsEntry("n02", "eco");
        assertThat(compact(plan(d, 8, perfNodes(2)).targets())).containsEntry("n01", "eco").containsEntry("n02", "performance");
    }

    @Test
    void policiesBuildsRuleSwapWithTheReconcileInterval() {
        var settings = PlannerSettings.defaults().toBuilder().policyType(PolicyType.RULE_SWAP_V1).queueHpMax(10)
                .reconcileInterval(Duration.ofSeconds(30)).build();
        var policy = Policies.create(settings);

        assertThat(policy).isInstanceOf(RuleSwapPolicy.class);
        // 135 s with a 30 s interval (90 s phases) is phase 1; with the 60 s default (180 s phases) it would be phase 0
        assertThat(policy.plan(new ClusterContext(Instant.ofEpochSecond(135), perfNodes(2), 0)).summary()).isEqualTo("phase 1");
    }

    @Test
    void withTheDefaultSettleTimeEverySwappedNodeReachesEcoWithinItsPhase() {
        // the tick at a phase's start sends a node to eco (it drains); the recheck the settle time names commits it
        var settings = PlannerSettings.defaults().toBuilder().policyType(PolicyType.RULE_SWAP_V1).build();
        var policy = Policies.create(settings);
        var guard = new StateGuard(settings);
        Duration phase = settings.reconcileInterval().multipliedBy(RuleSwapPolicy.PHASE_TICKS);
        assertThat(settings.settleTime()).as("the default settle time").isEqualTo(Duration.ofSeconds(5));
        Map<String, ManagedNode> nodes = new java.util.TreeMap<>();
        perfNodes(3).forEach(n -> nodes.put(n.name(), n));
        Instant start = Instant.ofEpochSecond(0);
        for (int p = 0; p < 4; p++) {
            Instant tick = start.plus(phase.multipliedBy(p));
            Plan plan = policy.plan(new ClusterContext(tick, List.copyOf(nodes.values()), 0));
            String ecoNode = p % 2 == 0 ? "n01" : "n02";
            for (ManagedNode n : List.copyOf(nodes.values())) {
                var requested = plan.targets().get(n.name()) == Profile.ECO ? PowerState.ActiveEco
                        : PowerState.ActivePerformance;
                Transition t = guard.check(n, requested, plan.policyName(), tick);
                nodes.put(n.name(), new ManagedNode(n.name(), Map.of(), false, t.to(), t.since(), List.of()));
            }
            assertThat(nodes.get(ecoNode).state()).as("phase %d: the tick drains %s", p, ecoNode)
                    .isEqualTo(PowerState.DrainingPerformance);
            Instant settled = tick.plus(settings.settleTime());
            Transition commit = guard.check(nodes.get(ecoNode), PowerState.ActiveEco, plan.policyName(), settled);
            assertThat(commit.to()).as("phase %d: %s in eco once settled", p, ecoNode).isEqualTo(PowerState.ActiveEco);
            assertThat(settled).as("before the next tick").isBefore(tick.plus(settings.reconcileInterval()));
            nodes.put(ecoNode, new ManagedNode(ecoNode, Map.of(), false, commit.to(), commit.since(), List.of()));
        }
    }
}
