package io.joulie.planner;

import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.joulie.planner.Fixtures.T0;
import static io.joulie.planner.Fixtures.count;
import static io.joulie.planner.Fixtures.ecoNodes;
import static org.assertj.core.api.Assertions.assertThat;

/** GPU-aware eco choice (decision 193): demand_sized_v1's GPU eco pool, its servers eco first and the kept ones last. */
class GpuAwareEcoTest {
    /** cpu-1 … cpu-{cpus} (16 cores, no boards) and gpu-1 … gpu-{gpus} (64 cores, 8 boards), all ActivePerformance. */
    static List<ManagedNode> cluster(int cpus, int gpus) {
        List<ManagedNode> nodes = new ArrayList<>();
        for (int i = 1; i <= cpus; i++) {
            nodes.add(new ManagedNode("cpu-" + i, Map.of(), false, PowerState.ActivePerformance, T0, List.of(), 16, NodePower.UNKNOWN));
        }
        for (int i = 1; i <= gpus; i++) {
            nodes.add(new ManagedNode("gpu-" + i, Map.of(), false, PowerState.ActivePerformance, T0, List.of(), 64, NodePower.of(null, 8)));
        }
        return nodes;
    }

    static ClusterContext context(List<ManagedNode> nodes, ClusterContext.CpuDemand cpu, ClusterContext.GpuDemand gpu) {
        return new ClusterContext(T0, nodes, 0, List.of(), List.of(), null, cpu, gpu);
    }

    @Test
    void surplusGpuServersGoEcoFirstAndTheKeptOnesLast() {
        List<ManagedNode> nodes = cluster(4, 3);
        // 3 eco of 7; one GPU server kept: gpu-1 and gpu-2 first (name order), then the CPU servers by name
        assertThat(ecoNodes(EcoSelection.assign(nodes, 4, 1))).containsExactlyInAnyOrder("gpu-1", "gpu-2", "cpu-1");
        // 6 eco of 7: every CPU server before the kept GPU server
        assertThat(ecoNodes(EcoSelection.assign(nodes, 1, 1))).containsExactlyInAnyOrder("gpu-1", "gpu-2", "cpu-1", "cpu-2", "cpu-3", "cpu-4");
        // all GPU servers kept: the CPU servers go first
        assertThat(ecoNodes(EcoSelection.assign(nodes, 5, 3))).containsExactlyInAnyOrder("cpu-1", "cpu-2");
        // without the GPU demand: name order, boards ignored
        assertThat(ecoNodes(EcoSelection.assign(nodes, 4))).containsExactlyInAnyOrder("cpu-1", "cpu-2", "cpu-3");
    }

    @Test
    void theAntiChurnRankStillHoldsWithinGpuServers() {
        List<ManagedNode> nodes = cluster(0, 3);
        // gpu-3 is already eco: it stays eco first; gpu-1 has a performance-only pod: it is the one kept
        nodes.set(2, new ManagedNode("gpu-3", Map.of(), false, PowerState.ActiveEco, T0, List.of(), 64, NodePower.of(null, 8)));
        nodes.set(0, new ManagedNode("gpu-1", Map.of(), false, PowerState.ActivePerformance, T0, List.of("ns/train"), 64,
                NodePower.of(null, 8)));
        assertThat(EcoSelection.surplusGpuServers(nodes, 1)).containsExactlyInAnyOrder("gpu-3", "gpu-2");
    }

    @Test
    void aPolicyThatOnlyCountsIgnoresBoards() {
        // static_partition at 50 %: 4 of 8 eco, by name, GPU demand known or not
        List<ManagedNode> nodes = cluster(5, 3);
        StaticPartitionPolicy policy = new StaticPartitionPolicy(0.5);
        for (ClusterContext.GpuDemand gpu : new ClusterContext.GpuDemand[] {new ClusterContext.GpuDemand(12, 0, 0), null}) {
            ClusterContext ctx = context(nodes, new ClusterContext.CpuDemand(0, 0, 0), gpu);
            assertThat(policy.gpuPerformanceNodes(ctx)).isEmpty();
            assertThat(ecoNodes(policy.plan(ctx).targets())).containsExactlyInAnyOrder("cpu-1", "cpu-2", "cpu-3", "cpu-4");
        }
    }

    @Test
    void demandSizedPutsEveryGpuServerThePerformanceOnlyBoardsDoNotNeedInTheGpuEcoPool() {
        // 4 CPU servers, 4 GPU servers of 8 boards (mean 40 cores); declared CPU work fills one node: floor(40 / 40)
        List<ManagedNode> nodes = cluster(4, 4);
        DemandSizedPolicy policy = new DemandSizedPolicy(0.2, 0, 0, 10);
        ClusterContext.CpuDemand cpu = new ClusterContext.CpuDemand(0, 0, 40);
        // 12 performance-only boards × 1.2 / 8 → 2 servers kept; the other 2 are the GPU eco pool, whatever the rest asks
        ClusterContext ctx = context(nodes, cpu, new ClusterContext.GpuDemand(12, 3, 14));
        assertThat(policy.gpuPerformanceNodes(ctx)).hasValue(2);
        Plan plan = policy.plan(ctx);
        assertThat(plan.performanceNodes()).as("8 − 1 CPU eco − 2 GPU eco").isEqualTo(5);
        assertThat(count(plan.targets(), Profile.ECO)).isEqualTo(3);
        assertThat(ecoNodes(plan.targets())).containsExactlyInAnyOrder("gpu-1", "gpu-2", "cpu-1");
        // 24 performance-only boards × 1.2 → 4 servers: no GPU eco pool; the CPU eco pool still on a CPU server
        ClusterContext busy = context(nodes, cpu, new ClusterContext.GpuDemand(24, 0, 0));
        assertThat(policy.gpuPerformanceNodes(busy)).hasValue(4);
        assertThat(ecoNodes(policy.plan(busy).targets())).containsExactly("cpu-1");
        // no performance-only GPU work: every GPU server eco, undeclared GPU work included
        ClusterContext idle = context(nodes, cpu, new ClusterContext.GpuDemand(0, 0, 0));
        assertThat(policy.gpuPerformanceNodes(idle)).hasValue(0);
        assertThat(ecoNodes(policy.plan(idle).targets())).containsExactlyInAnyOrder("gpu-1", "gpu-2", "gpu-3", "gpu-4", "cpu-1");
        // through the planner (the rule engine's ranking) the same choice, said in the summary
        Planner planner = new Planner(PlannerSettings.defaults().toBuilder().policyType(PolicyType.DEMAND_SIZED_V1).build());
        Plan viaRules = planner.plan(ctx).plan();
        assertThat(ecoNodes(viaRules.targets())).containsExactlyInAnyOrder("gpu-1", "gpu-2", "cpu-1");
        assertThat(viaRules.summary()).contains("gpuEco(2)").contains("GPU eco pool first, 2 GPU servers kept");
        // unknown GPU demand: as before, GPU servers counted with the rest and chosen by name
        ClusterContext unknown = context(nodes, cpu, null);
        assertThat(policy.gpuPerformanceNodes(unknown)).isEmpty();
        assertThat(policy.plan(unknown).performanceNodes()).isEqualTo(7);
        assertThat(ecoNodes(policy.plan(unknown).targets())).containsExactly("cpu-1");
    }
}
