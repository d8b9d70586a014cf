package io.joulie.sim;

import io.joulie.api.v1alpha1.NodePowerProfileSpec.CpuPower;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.GpuPower;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.planner.PodClass;
import io.joulie.planner.ProfileCaps;
import io.joulie.sim.optimum.EnergyBound;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class GpuSimulationTest {
    /** One 8-board A100 node. */
    private static final SimConfig ONE_GPU_NODE = SimConfig.of(Map.of("cluster.nodes", "1", "cluster.types", "gpu-a100x8:1",
            "workload.jobs", "1"));
    /** The clock a 240 W limit (60 %) leaves a busy A100 board. */
    private static final double F_240 = Math.cbrt((190.0 / 350 - 0.2) / 0.8);
    /** A run's energy counts its last physics step (1 s) whole: 8 boards at 240 W for a second, in kWh. */
    private static final double ONE_STEP = 8 * 240 / 3.6e6;

    /** Applies the same caps to every node before the first step and changes nothing after; no profile restricts placement. */
    static class FixedCaps implements ControlPlane {
        private final ProfileCaps caps;
        private final List<SimNode> nodes = new ArrayList<>();

        FixedCaps(ProfileCaps caps) {
            this.caps = caps;
        }

        @Override
        public boolean profilesConstrainPlacement() {
            return false;
        }

        @Override
        public void start(SimCluster cluster) {
            for (SimNode n : cluster.nodes()) {
                cluster.apply(n, PowerState.ActivePerformance, n.since(), caps);
                nodes.add(n);
            }
        }

        @Override
        public void beforeStep(double t, SimCluster cluster) {
            // fixed
        }
    }

    private static RunResult run(SimConfig config, List<JobSpec> jobs, GpuPower gpu) {
        return new Simulation(config, jobs, Baseline.B, new FixedCaps(new ProfileCaps(CpuPower.watts(5000), gpu))).run();
    }

    /** An 8-board job of an hour's work at the highest clock, with 4 host cores. */
    private static List<JobSpec> eightBoardJob(double sensitivity, String profile) {
        return List.of(JobSpec.of(0, 0, 4, 8, 8 * 3600, sensitivity, profile, false));
    }

    @Test
    void aGpuCapLowersTheBoardsEnergyAndSlowsSensitiveJobsMost() {
        RunResult full = run(ONE_GPU_NODE, eightBoardJob(1.0, null), GpuPower.percent(100));
        assertThat(full.makespanSeconds()).isCloseTo(3600, within(1e-6));
        assertThat(full.gpuEnergyKWh()).as("8 × 400 W for an hour").isCloseTo(3.2, within(1e-9));
        assertThat(full.cpuEnergyKWh()).as("the host, 4 of 56 cores busy, for an hour")
                .isCloseTo(NodeCatalog.types().get("dell-r640").model().measuredPower(4.0 / 56, 1, 5000) / 1000, within(1e-9));

        RunResult sensitive = run(ONE_GPU_NODE, eightBoardJob(1.0, null), GpuPower.percent(60));
        RunResult insensitive = run(ONE_GPU_NODE, eightBoardJob(0.3, null), GpuPower.percent(60));
        double vSensitive = F_240;
        double vInsensitive = 1 - (1 - GpuModelTest.f240(0.65)) * 0.3;
        assertThat(sensitive.makespanSeconds()).isCloseTo(3600 / vSensitive, within(1e-3));
        assertThat(insensitive.makespanSeconds()).isCloseTo(3600 / vInsensitive, within(1e-3));
        assertThat(sensitive.gpuEnergyKWh()).as("8 × 240 W for the slower run").isCloseTo(8 * 240 * 3600 / vSensitive / 3.6e6, within(ONE_STEP))
                .isLessThan(full.gpuEnergyKWh());
        assertThat(insensitive.gpuEnergyKWh()).isCloseTo(8 * 240 * 3600 / vInsensitive / 3.6e6, within(ONE_STEP))
                .isLessThan(sensitive.gpuEnergyKWh());
        assertThat(sensitive.energyKWh()).isCloseTo(sensitive.cpuEnergyKWh() + sensitive.gpuEnergyKWh(), within(1e-12));
    }

    @Test
    void gpuCapsInWattsOrPercentResolvePerNodeType() {
        SimConfig config = SimConfig.of(Map.of("cluster.nodes", "2", "cluster.types", "gpu-a100x8:0.5,gpu-h100x8:0.5",
                "workload.jobs", "1"));
        List<JobSpec> job = List.of(JobSpec.of(0, 0, 1, 1, 60, 1.0, null, false));
        Map<GpuPower, List<Double>> expected = Map.of(GpuPower.percent(60), List.of(240.0, 420.0), GpuPower.watts(300), List.of(300.0, 300.0),
                GpuPower.watts(150), List.of(150.0, 200.0), GpuPower.watts(800), List.of(400.0, 700.0));
        expected.forEach((cap, watts) -> {
            FixedCaps control = new FixedCaps(new ProfileCaps(CpuPower.percent(60), cap));
            new Simulation(config, job, Baseline.B, control).run();
            assertThat(control.nodes).extracting(n -> n.type().name()).containsExactly("gpu-a100x8", "gpu-h100x8");
            assertThat(control.nodes).as(cap.toString()).extracting(SimNode::gpuCapWatts).containsExactlyElementsOf(watts);
            assertThat(control.nodes).as("the CPU percent on the host's model").extracting(SimNode::capWatts).containsOnly(3000.0);
        });
    }

    @Test
    void aPerformanceOnlyGpuJobUnderTheEcoGpuCapIsAViolation() {
        assertThat(run(ONE_GPU_NODE, eightBoardJob(1.0, "performance"), GpuPower.percent(60)).violationSeconds())
                .isCloseTo(3600 / F_240, within(1.0));
        assertThat(run(ONE_GPU_NODE, eightBoardJob(1.0, "performance"), GpuPower.percent(100)).violationSeconds()).isZero();
        assertThat(run(ONE_GPU_NODE, eightBoardJob(1.0, null), GpuPower.percent(60)).violationSeconds())
                .as("an unconstrained job may run capped").isZero();
    }

    @Test
    void gpuJobsLandOnlyOnGpuNodesWithFreeBoardsAndCpuJobsNeverThere() {
        SimConfig config = SimConfig.of(Map.of("cluster.nodes", "2", "cluster.types", "dell-r640:0.5,gpu-a100x8:0.5",
                "workload.jobs", "1"));
        // two 6-board jobs on one 8-board node: the second waits for the first; a CPU job goes to the R640 though the
        // GPU node has free cores
        List<JobSpec> jobs = List.of(JobSpec.of(0, 0, 2, 6, 6 * 3600, 1.0, null, false),
                JobSpec.of(1, 1, 2, 6, 6 * 3600, 1.0, null, false), JobSpec.of(2, 2, 56, 56 * 1800, 1.0, null));
        List<String> placed = new ArrayList<>();
        FixedCaps control = new FixedCaps(new ProfileCaps(CpuPower.watts(5000), GpuPower.percent(100))) {
            @Override
            public void started(JobSpec job, SimNode node) {
                placed.add(job.id() + "@" + node.type().name());
            }
        };
        RunResult r = new Simulation(config, jobs, Baseline.B, control).run();
        assertThat(placed).containsExactly("0@gpu-a100x8", "2@dell-r640", "1@gpu-a100x8");
        assertThat(r.makespanSeconds()).as("the second GPU job waited for the boards").isCloseTo(7200, within(1e-6));
        assertThat(r.completionTimes().get(PodClass.UNCONSTRAINED)).containsExactly(new double[] {1800, 3600, 7199}, within(1e-6));
    }

    @Test
    void theLowerBoundCoversTheBoardsAndIsSolvedByHandForOneGpuJob() {
        // An 8-board job of s = 0.5 (intensity 0.75) on one node: per unit of work the 240 W eco limit costs (190 + 50θ)/v
        // against 230 + 50θ at the highest clock (70 + 280·0.75 above idle), v = 1 − (1 − f)·0.5; eco is cheaper for every θ and the bound rises with θ
        // (8·3600·50/v > 8·50·3600), so θ = 1: every board at 240 W for the slower run. The host runs no CPU job: its
        // idle power for the shortest run (θ = 0), 55 W for an hour.
        double v = 1 - (1 - GpuModelTest.f240(0.75)) * 0.5;
        List<JobSpec> job = eightBoardJob(0.5, null);
        EnergyBound b = EnergyBound.of(ONE_GPU_NODE, job);
        assertThat(b.makespanLowerBound()).isEqualTo(3600.0);
        assertThat(b.gpuKWh()).isCloseTo(8 * 240 * 3600 / v / 3.6e6, within(1e-9));
        assertThat(b.kWh()).isCloseTo(b.gpuKWh() + 0.055, within(1e-9));
        RunResult capped = run(ONE_GPU_NODE, job, GpuPower.percent(60));
        assertThat(capped.energyKWh()).as("the capped run: the boards reach the bound, the host draws more than idle")
                .isGreaterThan(b.kWh());
        assertThat(capped.gpuEnergyKWh()).isCloseTo(b.gpuKWh(), within(ONE_STEP)).isGreaterThanOrEqualTo(b.gpuKWh());
    }

    /** The hetero scenario shortened: 20 nodes of the four types, 6 hours of arrivals at the same load. */
    @Test
    void theHeterogeneousClusterFinishesEveryJobUnderEveryPolicyWithoutViolations() {
        Map<String, String> small = new HashMap<>(Map.of("cluster.nodes", "20", "workload.horizonSeconds", "21600",
                "workload.meanInterarrivalSeconds", "13.5", "planner.queueHpMin", "8", "planner.queueHpMax", "20",
                "optimizer.evaluations", "12"));
        SimConfig config = Main.config("hetero", small);
        assertThat(config.nodeTypes()).extracting(NodeType::name).containsExactly("dell-r640", "dell-r940", "gpu-a100x8", "gpu-h100x8");
        Comparison c = Comparison.run("small hetero", config, 2);
        assertThat(c.get(Baseline.A).jobsTotal()).isGreaterThan(500);
        for (Baseline b : c.results().keySet()) {
            RunResult r = c.get(b);
            assertThat(r.finished()).as(b + " finishes every job").isTrue();
            assertThat(r.violationSeconds()).as(b + " violations").isZero();
            assertThat(r.gpuEnergyKWh()).as(b + " GPU energy").isPositive().isLessThan(r.energyKWh());
            assertThat(c.bound().kWh()).as("the bound is below " + b).isLessThanOrEqualTo(r.energyKWh());
        }
        assertThat(c.bound().gpuKWh()).isPositive().isLessThan(c.get(Baseline.A).gpuEnergyKWh());
        assertThat(c.get(Baseline.B).gpuEnergyKWh()).as("static_partition's eco GPU nodes run capped")
                .isLessThan(c.get(Baseline.A).gpuEnergyKWh());
        for (Baseline b : List.of(Baseline.B, Baseline.C, Baseline.D)) {
            assertThat(c.get(Baseline.H).energyKWh()).as("the optimum is no worse than " + b).isLessThanOrEqualTo(c.get(b).energyKWh());
        }
    }

    @Test
    void badGpuInputIsRefusedWithAClearMessage() {
        assertThatThrownBy(() -> SimConfig.of(Map.of("workload.gpuShare", "1.5"))).hasMessageContaining("workload.gpuShare must be within [0, 1]");
        assertThatThrownBy(() -> SimConfig.of(Map.of("workload.gpusMin", "0"))).hasMessageContaining("need 1 ≤ workload.gpusMin ≤ workload.gpusMax");
        assertThatThrownBy(() -> SimConfig.of(Map.of("workload.gpusMin", "3", "workload.gpusMax", "2")))
                .hasMessageContaining("got 3 and 2");
        assertThatThrownBy(() -> SimConfig.of(Map.of("workload.gpuWorkMin", "0"))).hasMessageContaining("workload.gpuWorkMin");
        assertThatThrownBy(() -> SimConfig.of(Map.of("workload.gpuSensitivityMax", "1.2"))).hasMessageContaining("workload.gpuSensitivityMax ≤ 1");
        assertThatThrownBy(() -> SimConfig.of(Map.of("planner.gpuEcoCapPercent", "120"))).hasMessageContaining("planner.gpuEcoCapPercent");
        assertThatThrownBy(() -> SimConfig.of(Map.of("planner.gpuEcoCapWattsPerGpu", "500", "planner.gpuPerformanceCapWattsPerGpu", "400")))
                .hasMessageContaining("eco must never allow more than performance");

        SimConfig cpuOnly = SimConfig.of(Map.of("workload.gpuShare", "0.5"));
        assertThatThrownBy(() -> Simulation.standalone(cpuOnly, Workload.of(cpuOnly.workload()), Baseline.A))
                .hasMessageContaining("GPU boards but no GPU node of cluster.types has them").hasMessageContaining("could never run");
        assertThatThrownBy(() -> run(ONE_GPU_NODE, List.of(JobSpec.of(0, 0, 1, 9, 60, 1, null, false)), GpuPower.percent(100)))
                .as("9 boards on an 8-board node").hasMessageContaining("9 GPU boards");
        assertThatThrownBy(() -> run(ONE_GPU_NODE, List.of(JobSpec.of(0, 0, 1, 60, 1, null)), GpuPower.percent(100)))
                .as("a CPU job on a cluster of GPU nodes").hasMessageContaining("no node without GPUs has them");
    }
}
