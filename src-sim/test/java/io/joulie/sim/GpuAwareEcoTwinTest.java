package io.joulie.sim;

import io.joulie.api.v1alpha1.Profile;
import io.joulie.planner.Planner;
import io.joulie.planner.PolicyType;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The twin hands the planner every node's GPU boards and the GPU demand by class (decision 193). */
class GpuAwareEcoTwinTest {
    @Test
    void demandSizedKeepsOnlyTheGpuServersPerformanceOnlyBoardsNeed() {
        // 8 nodes: 4 R640 and 4 A100 servers; a fifth of the jobs eco-only, 30 % GPU jobs. demand_sized_v1 keeps the GPU
        // servers the performance-only boards need, the others are its GPU eco pool; its CPU eco pool goes to the R640s
        SimConfig config = SimConfig.of(Map.ofEntries(Map.entry("cluster.nodes", "8"),
                Map.entry("cluster.types", "dell-r640:0.5,gpu-a100x8:0.5"), Map.entry("workload.jobs", "80"),
                Map.entry("workload.gpuShare", "0.3"), Map.entry("workload.ecoShare", "0.2"),
                Map.entry("workload.gpuWorkMax", "3600"), Map.entry("workload.meanInterarrivalSeconds", "30")));
        List<JobSpec> jobs = Workload.of(config.workload());
        List<String> names = Simulation.nodeNames(config.nodes());
        List<Integer> types = config.typeOfEachNode();
        List<Long> gpuEco = new ArrayList<>();
        List<Long> cpuEco = new ArrayList<>();
        List<String> summaries = new ArrayList<>();
        RunResult r = new Simulation(config, jobs, Baseline.D, new InProcessPlanner(new Planner(config.planner().withPolicy(PolicyType.DEMAND_SIZED_V1)),
                config.tickSeconds(), (t, plan, moved) -> {
            long gpu = 0;
            long cpu = 0;
            for (Map.Entry<String, Profile> e : plan.plan().targets().entrySet()) {
                if (e.getValue() == Profile.ECO) {
                    if (config.nodeTypes().get(types.get(names.indexOf(e.getKey()))).hasGpus()) {
                        gpu++;
                    } else {
                        cpu++;
                    }
                }
            }
            gpuEco.add(gpu);
            cpuEco.add(cpu);
            summaries.add(plan.plan().summary());
        })).run();
        assertThat(r.finished()).isTrue();
        assertThat(r.violationSeconds()).isZero();
        assertThat(summaries).allSatisfy(s -> assertThat(s).contains("gpuEco(").contains("GPU eco pool first"));
        assertThat(gpuEco).as("GPU servers eco at some tick").anyMatch(g -> g > 0);
        assertThat(gpuEco).as("and kept for performance-only boards at another").anyMatch(g -> g < 4);
        assertThat(cpuEco).as("eco-only CPU work gets eco R640s at some tick").anyMatch(c -> c > 0);
        // the board energy falls below all-performance's: the GPU eco pool runs under the eco limit
        RunResult a = Simulation.standalone(config, jobs, Baseline.A).run();
        assertThat(r.gpuEnergyKWh()).isLessThan(a.gpuEnergyKWh());
    }
}
