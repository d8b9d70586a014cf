package io.joulie.planner;

import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.CpuPower;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.GpuPower;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.joulie.planner.Fixtures.T0;
import static io.joulie.planner.Fixtures.context;
import static io.joulie.planner.Fixtures.count;
import static io.joulie.planner.Fixtures.perfNodes;
import static org.assertj.core.api.Assertions.assertThat;

class DemandSizedPolicyTest {
    /** n performance nodes of {@code cores} allocatable CPU each. */
    static List<ManagedNode> nodes(int n, double cores) {
        List<ManagedNode> list = new ArrayList<>();
        for (ManagedNode m : perfNodes(n)) {
            list.add(new ManagedNode(m.name(), m.labels(), false, m.state(), m.since(), m.performancePods(), cores));
        }
        return list;
    }

    static ClusterContext demand(List<ManagedNode> nodes, double perfCores, double ecoCores) {
        return demand(nodes, perfCores, 0, ecoCores);
    }

    static ClusterContext demand(List<ManagedNode> nodes, double perfCores, double ecoOnlyCores, double declaredCores) {
        return new ClusterContext(T0, nodes, 0, List.of(), List.of(), null,
                new ClusterContext.CpuDemand(perfCores, ecoOnlyCores, declaredCores));
    }

    @ParameterizedTest(name = "[{index}] n={0} cores={1} headroom={2} min={3} max={4} Dperf={5} Deco={6} -> {7}")
    @CsvSource({
            // n, cores, headroom, min, max, Dperf, Deco, hp
            // the eco pool holds the declared work in whole nodes, every other node is performance
            "10, 16, 0.2, 0, 0, 0, 0, 10",
            "10, 16, 0.2, 0, 0, 0, 48, 7",     // 48 / 16 = 3 eco nodes
            "10, 16, 0.2, 0, 0, 0, 47.9, 8",   // a node not filled stays performance: floor(2.99) = 2
            "10, 16, 0.2, 0, 0, 0, 1000, 0",   // more declared work than the cluster: all eco
            // the performance pool keeps the performance-only demand plus headroom
            "10, 16, 0.2, 0, 0, 40, 1000, 3",  // ceil(40 × 1.2 / 16) = 3
            "10, 16, 0.2, 0, 0, 41, 1000, 4",  // ceil(3.075) = 4
            "10, 16, 0.0, 0, 0, 40, 1000, 3",  // ceil(2.5)
            "10, 16, 0.5, 0, 0, 40, 1000, 4",  // ceil(3.75)
            "10, 16, 0.2, 0, 0, 40, 64, 6",    // both: max(10 − 4, 3) = 6
            // bounds as queue_aware_v1's
            "10, 16, 0.2, 2, 0, 0, 1000, 2",   // min raises
            "10, 16, 0.2, 0, 5, 0, 0, 5",      // max lowers
            "10, 16, 0.2, 0, 5, 1000, 0, 5",   // max lowers demand too
            "10, 16, 0.2, 4, 2, 0, 1000, 4",   // max < min -> min
            "3, 16, 0.2, 5, 10, 0, 1000, 3",   // then to [0, n]
            "0, 16, 0.2, 1, 5, 40, 0, 0",      // nothing eligible
            "10, 16, -1, 0, 0, 32, 1000, 2",   // negative headroom counts as 0
    })
    void performanceCount(int n, double cores, double headroom, int min, int max, double perf, double eco, int hp) {
        Plan plan = new DemandSizedPolicy(headroom, min, max, 10).plan(demand(nodes(n, cores), perf, eco));
        assertThat(plan.performanceNodes()).isEqualTo(hp);
        assertThat(plan.targets()).hasSize(n);
        assertThat(count(plan.targets(), Profile.PERFORMANCE)).isEqualTo(hp);
        assertThat(plan.policyName()).isEqualTo("demand_sized_v1");
    }

    @ParameterizedTest(name = "eco-only {0} + declared {1} cores on 16-core nodes -> {2} eco")
    @CsvSource({
            "1, 0, 1",     // eco-only work gets a node even when it fills none: it can run nowhere else
            "16, 0, 1",
            "17, 0, 2",
            "1, 15, 1",    // together they fill one node
            "1, 31, 2",
            "0, 31, 1",    // declared work alone: only the nodes it fills
    })
    void ecoOnlyWorkAlwaysHasEcoNodes(double ecoOnly, double declared, int eco) {
        Plan plan = new DemandSizedPolicy(0.2, 0, 0, 10).plan(demand(nodes(10, 16), 0, ecoOnly, declared));
        assertThat(plan.performanceNodes()).isEqualTo(10 - eco);
    }

    @Test
    void withoutCpuFiguresItCountsPodsAndKeepsNoEcoPool() {
        // nodes report no allocatable CPU: ceil(P × 1.2 / perNode), no eco pool from declared work
        Plan unknownCores = new DemandSizedPolicy(0.2, 0, 0, 10).plan(demand(nodes(10, 0), 40, 1000));
        assertThat(unknownCores.performanceNodes()).as("no CPU figures: every node performance").isEqualTo(10);
        Plan unknownDemand = new DemandSizedPolicy(0.2, 0, 0, 10).plan(context(perfNodes(10), 25));
        assertThat(unknownDemand.performanceNodes()).isEqualTo(10);
        Plan fewPods = new DemandSizedPolicy(0.2, 0, 6, 10).plan(context(perfNodes(10), 25));
        assertThat(fewPods.performanceNodes()).as("ceil(25 × 1.2 / 10) = 3, max(10 − 0, 3) capped at 6").isEqualTo(6);
        assertThat(fewPods.summary()).contains("no CPU figures");
    }

    @Test
    void theMeanAllocatableCpuOfTheEligibleNodesSizesTheEcoPool() {
        List<ManagedNode> mixed = new ArrayList<>(nodes(4, 16));
        mixed.addAll(nodes(4, 48).stream().map(m -> new ManagedNode(m.name() + "-big", m.labels(), false, m.state(), m.since(),
                m.performancePods(), 48)).toList());
        // mean 32 cores: 96 declared cores fill 3 nodes
        Plan plan = new DemandSizedPolicy(0.2, 0, 0, 10).plan(demand(mixed, 0, 96));
        assertThat(plan.performanceNodes()).isEqualTo(5);
        assertThat(plan.summary()).contains("eco=max(ceil(0.0/32.0), floor((0.0+96.0)/32.0))=3");
    }

    @Test
    void theEcoCapOfANodeIsThatOfItsType() {
        PlannerSettings s = PlannerSettings.defaults().toBuilder().policyType(PolicyType.DEMAND_SIZED_V1)
                .ecoCapWattsByType(Map.of("big", 400.0, "small", 150.0)).build();
        List<ManagedNode> list = new ArrayList<>();
        list.add(new ManagedNode("a-small", Map.of(JoulieApi.NODE_TYPE_LABEL, "small"), false, PowerState.ActiveEco, T0, List.of(), 16));
        list.add(new ManagedNode("b-big", Map.of(JoulieApi.NODE_TYPE_LABEL, "big"), false, PowerState.ActiveEco, T0, List.of(), 16));
        list.add(new ManagedNode("c-other", Map.of(JoulieApi.NODE_TYPE_LABEL, "other"), false, PowerState.ActiveEco, T0, List.of(), 16));
        list.add(new ManagedNode("d-perf", Map.of(JoulieApi.NODE_TYPE_LABEL, "big"), false, PowerState.ActivePerformance, T0, List.of(), 16));
        // 48 declared cores: three eco nodes (the three already eco), one performance
        Planner.TickPlan plan = new Planner(s).plan(demand(list, 0, 48));
        Map<String, CpuPower> caps = new HashMap<>();
        plan.assignments(s).forEach(a -> caps.put(a.node(), a.cpu()));
        assertThat(caps).containsEntry("a-small", CpuPower.watts(150.0)).containsEntry("b-big", CpuPower.watts(400.0))
                .as("a type without its own cap takes the eco cap (ECO_CAP_PERCENT by default)").containsEntry("c-other", CpuPower.percent(60))
                .as("performance nodes take the performance cap").containsEntry("d-perf", CpuPower.percent(100));
        assertThat(s.caps(Profile.ECO, Map.of(JoulieApi.NODE_TYPE_LABEL, "small"))).as("the type's cap is the CPU's; the GPUs keep eco's")
                .isEqualTo(new ProfileCaps(CpuPower.watts(150.0), GpuPower.percent(60)));
    }

    @Test
    void aNodeThatStartsToDrainKeepsThePerformanceCapOfItsType() {
        PlannerSettings s = PlannerSettings.defaults().toBuilder().policyType(PolicyType.DEMAND_SIZED_V1).queueHpMin(0)
                .ecoCapWattsByType(Map.of("big", 400.0)).build();
        List<ManagedNode> list = List.of(new ManagedNode("a", Map.of(JoulieApi.NODE_TYPE_LABEL, "big"), false,
                PowerState.ActivePerformance, T0, List.of(), 16));
        Planner.TickPlan plan = new Planner(s).plan(demand(list, 0, 16));
        assertThat(plan.transitions()).singleElement().satisfies(t -> assertThat(t.to()).isEqualTo(PowerState.DrainingPerformance));
        assertThat(plan.assignments(s)).singleElement().satisfies(a -> assertThat(a.cpu()).isEqualTo(CpuPower.percent(100)));
    }
}
