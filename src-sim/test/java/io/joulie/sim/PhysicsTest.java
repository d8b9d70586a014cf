package io.joulie.sim;

import io.joulie.api.v1alpha1.NodePowerProfileSpec.CpuPower;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.GpuPower;
import io.joulie.planner.ProfileCaps;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * The calibrated types' physics (docs/simulation.md, "Where a cap acts", "Power by kind of work", "GPU boards' speed",
 * "Interference"): a cap acts per CPU package as the agent writes it, memory-bound work draws less at the same clock,
 * an H100 board does more work per second than an A100 board, and co-located jobs may slow each other.
 */
class PhysicsTest {
    private static final NodeModel R640 = NodeCatalog.types().get("dell-r640").model();
    /** The R640's packages at idle: 40 % of its 55 W idle at the wall, through a 92 % efficient supply. */
    private static final double PACKAGE_IDLE = 0.4 * 55 * 0.92;
    /** Its clock-scaled power at full load and full clock, at the wall: φ·(469 − 55). */
    private static final double SCALED = 0.6 * 414;

    @Test
    void aNodeCapIsSplitOverThePackagesAndBoundsOnlyTheirPower() {
        assertThat(R640.sockets()).isEqualTo(2);
        assertThat(R640.packageLimitWatts(260)).as("the agent writes watts / sockets to each package").isEqualTo(130.0);
        // a fully loaded R640 running compute-bound work: its packages draw 20.24 + 0.92·248.4 = 248.8 W, under 2 × 130 W
        assertThat(R640.cappedPower(1, 1, 1)).isCloseTo(PACKAGE_IDLE + 0.92 * SCALED, within(1e-9)).isLessThan(260);
        assertThat(R640.capFrequency(1, 260)).as("260 W of packages does not bind where 260 W at the wall would")
                .isEqualTo(1.0);
        assertThat(R640.measuredPower(1, 1, 260)).as("the wall reads the whole node").isEqualTo(469.0);
        // 160 W (80 W a package) binds: 20.24 + 0.92·248.4·f² = 160
        double f = Math.sqrt((160 - PACKAGE_IDLE) / (0.92 * SCALED));
        assertThat(R640.capFrequency(1, 160)).isCloseTo(f, within(1e-12));
        assertThat(R640.cappedPower(1, f, 1)).isCloseTo(160, within(1e-9));
        // the wall: the packages through the supply plus the rest (memory, fans, board), which the cap does not touch
        double rest = 55 - PACKAGE_IDLE / 0.92 + 0.4 * 414;
        assertThat(R640.measuredPower(1, f, 160)).isCloseTo(rest + 160 / 0.92, within(1e-9)).isGreaterThan(160 + 150);
        // below the lowest frequency's package power RAPL duty-cycles: the packages then draw the cap
        double atFmin = R640.cappedPower(1, R640.fMin(), 1);
        double duty = R640.duty(1, R640.fMin(), 50);
        assertThat(atFmin).isGreaterThan(50);
        assertThat(duty).isCloseTo((50 - PACKAGE_IDLE) / (atFmin - PACKAGE_IDLE), within(1e-12)).isLessThan(1);
        // the seed-era model keeps its cap on the wall power
        NodeModel seed = NodeModel.defaults();
        assertThat(seed.capsPackages()).isFalse();
        assertThat(seed.power(1, seed.capFrequency(1, 260))).isCloseTo(260, within(1e-9));
    }

    @Test
    void memoryBoundWorkDrawsLessAtTheSameClockAndLosesLessUnderACap() {
        double w = R640.intensity(0.35);
        assertThat(w).as("1 − 0.5·(1 − 0.35)").isCloseTo(0.675, within(1e-12));
        assertThat(R640.power(1, 1, 1) - R640.power(1, 1, w)).as("at full clock").isCloseTo(SCALED * 0.325, within(1e-9));
        // through the engine: two fully loaded nodes under the same 160 W cap, one memory-bound, one compute-bound
        SimNode memory = loaded(0.35, 160);
        SimNode compute = loaded(1.0, 160);
        assertThat(memory.powerWatts).isLessThan(compute.powerWatts + 1e-9);
        assertThat(memory.f).as("the same package watts leave a stalled core a higher clock").isGreaterThan(compute.f + 0.1);
        SimNode uncapped = loaded(0.35, 5000);
        assertThat(uncapped.powerWatts).isCloseTo(R640.power(1, 1, w), within(1e-9)).isLessThan(469);
        // eco's saving on memory-bound work per unit of work (50 W of packages against none) is smaller than with
        // job-independent power: the artefact of "full power at full clock" is gone
        NodeModel sameForEveryJob = new NodeModel(R640.cores(), R640.curve(), R640.beta(), R640.frequencyShare(), R640.fminMHz(),
                R640.fmaxMHz(), R640.floorWatts(), R640.capMinWatts(), R640.capMaxWatts(), R640.capToleranceWatts(),
                R640.throttleTauSeconds(), R640.sockets(), R640.packageIdleWatts(), R640.psuEfficiency(), 0);
        assertThat(ecoSaving(R640, 0.35)).isBetween(0.15, 0.22).isLessThan(ecoSaving(sameForEveryJob, 0.35) - 0.05);
    }

    /** 1 − (energy per unit of work of a full node under a 50 W package cap) / (the same uncapped), at sensitivity s. */
    private static double ecoSaving(NodeModel m, double s) {
        double w = m.intensity(s);
        double f = m.capFrequency(1, 50, w);
        double d = m.duty(1, f, 50, w);
        double eco = m.measuredPower(1, f, 50, w) / (NodeModel.jobSpeed(1, s, f) * d);
        return 1 - eco / m.power(1, 1, w);
    }

    private static SimNode loaded(double sensitivity, double cap) {
        SimNode n = new SimNode(0, "n", NodeCatalog.types().get("dell-r640"), 0, Simulation.EPOCH);
        n.capWatts = R640.clampCap(cap);
        n.attach(JobSpec.of(0, 0, 56, 3600, sensitivity, null));
        n.refresh(0);
        return n;
    }

    @Test
    void aMemoryBoundGpuJobDrawsLessAndAnH100BoardDoesTwiceTheA100sWork() {
        GpuModel a100 = NodeCatalog.types().get("gpu-a100x8").gpu();
        GpuModel h100 = NodeCatalog.types().get("gpu-h100x8").gpu();
        assertThat(a100.busyBoardPower(400, a100.board().intensity(0.3))).as("50 + 350·(0.2 + 0.8·0.65)")
                .isCloseTo(50 + 350 * (0.2 + 0.8 * 0.65), within(1e-9)).isLessThan(400);
        assertThat(h100.jobSpeed(1, 1.0, 700)).isEqualTo(2.0);
        assertThat(a100.jobSpeed(1, 1.0, 400)).isEqualTo(1.0);
        // through the engine: the same 8-board hour of A100 work takes half as long on an H100 server and, at 700 W a
        // board against 400, 12.5 % less board energy
        List<JobSpec> job = List.of(JobSpec.of(0, 0, 4, 8, 8 * 3600, 1.0, null, false));
        RunResult onA100 = run("gpu-a100x8", job);
        RunResult onH100 = run("gpu-h100x8", job);
        assertThat(onA100.makespanSeconds()).isCloseTo(3600, within(1e-6));
        assertThat(onH100.makespanSeconds()).isCloseTo(1800, within(1e-6));
        assertThat(onH100.gpuEnergyKWh()).isCloseTo(8 * 700 * 1800 / 3.6e6, within(8 * 700 / 3.6e6))
                .isLessThan(onA100.gpuEnergyKWh() * 0.9);
        assertThatThrownBy(() -> GpuModel.of(8, 50, 400, 3, 0.8, 420, 1410, 100, 400, 400, 0.5, 0))
                .hasMessageContaining("throughput");
        // a sensitivity run replaces the catalog's factor
        SimConfig faster = SimConfig.of(Map.of("cluster.nodes", "2", "cluster.types", "gpu-a100x8:0.5,gpu-h100x8:0.5",
                "workload.jobs", "1", "cluster.gpuThroughput", "gpu-h100x8=3.2"));
        assertThat(faster.nodeTypes()).extracting(t -> t.gpu().throughput()).containsExactly(1.0, 3.2);
        assertThatThrownBy(() -> SimConfig.of(Map.of("cluster.types", "dell-r640:1", "cluster.gpuThroughput", "dell-r640=2")))
                .hasMessageContaining("not a GPU type");
        assertThatThrownBy(() -> SimConfig.of(Map.of("cluster.types", "gpu-a100x8:1", "cluster.gpuThroughput", "gpu-a100x8=fast")))
                .hasMessageContaining("must be a number");
    }

    private static RunResult run(String type, List<JobSpec> jobs) {
        SimConfig config = SimConfig.of(Map.of("cluster.nodes", "1", "cluster.types", type + ":1", "workload.jobs", "1"));
        return new Simulation(config, jobs, Baseline.B, new GpuSimulationTest.FixedCaps(new ProfileCaps(CpuPower.watts(5000), GpuPower.percent(100)))).run();
    }

    @Test
    void coLocatedJobsSlowEachOtherByTheStatedInterference() {
        List<JobSpec> jobs = List.of(JobSpec.of(0, 0, 28, 28 * 3600, 1.0, null), JobSpec.of(1, 0, 28, 28 * 3600, 1.0, null));
        for (String gamma : List.of("0", "0.1")) {
            SimConfig config = SimConfig.of(Map.of("cluster.nodes", "1", "cluster.types", "dell-r640:1", "workload.jobs", "1",
                    "cluster.interference", gamma));
            RunResult r = new Simulation(config, jobs, Baseline.A, new GpuSimulationTest.FixedCaps(new ProfileCaps(CpuPower.watts(5000), GpuPower.percent(100)))).run();
            // each job shares the node with 28 of 56 other cores busy: it runs at 1 − γ·0.5
            assertThat(r.makespanSeconds()).as("γ = " + gamma).isCloseTo(3600 / (1 - Double.parseDouble(gamma) * 0.5), within(1.0));
        }
        assertThatThrownBy(() -> SimConfig.of(Map.of("cluster.interference", "1"))).hasMessageContaining("cluster.interference");
    }

    @Test
    void theLoadCurveIsReadAtBusyCoresNotRequestedOnes() {
        // a job holding all 56 cores but keeping half of them busy puts the node at 50 % of its SPECpower load
        SimNode half = new SimNode(0, "n", NodeCatalog.types().get("dell-r640"), 0, Simulation.EPOCH);
        half.capWatts = R640.capMaxWatts();
        JobSpec job = JobSpec.of(0, 0, 56, 3600, 1.0, null).withActivity(0.5);
        half.attach(job);
        half.refresh(0);
        assertThat(half.powerWatts).isCloseTo(232.0, within(1e-9));
        assertThat(half.speed(job)).as("its work is in requested core-seconds: its duration does not change").isEqualTo(56.0);
        half.detach(job);
        assertThat(half.busyCores()).isZero();
        // the generator draws activities only when asked (seeded runs of full use unchanged), the trace reads them
        Map<String, String> day = new java.util.HashMap<>(Main.CALIBRATED_WORKLOAD);
        day.putAll(Map.of("workload.horizonSeconds", "3600", "workload.meanInterarrivalSeconds", "20"));
        List<JobSpec> full = Workload.of(SimConfig.of(day).workload());
        day.putAll(Map.of("workload.activityMin", "0.4", "workload.activityMax", "0.9"));
        List<JobSpec> partly = Workload.of(SimConfig.of(day).workload());
        assertThat(full).allMatch(j -> j.activity() == 1.0);
        assertThat(partly).allMatch(j -> j.activity() >= 0.4 && j.activity() < 0.9);
        assertThatThrownBy(() -> SimConfig.of(Map.of("workload.activityMin", "0"))).hasMessageContaining("workload.activityMin");
    }

    @Test
    void traceActivitiesAreReadAndChecked(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws java.io.IOException {
        java.nio.file.Path trace = dir.resolve("t.jsonl");
        java.nio.file.Files.writeString(trace, "{\"arrival\": 0, \"cores\": 4, \"work\": 100, \"activity\": 0.25}\n"
                + "{\"arrival\": 1, \"cores\": 4, \"work\": 100}\n");
        assertThat(Workload.readTrace(trace)).extracting(JobSpec::activity).containsExactly(0.25, 1.0);
        java.nio.file.Files.writeString(trace, "{\"arrival\": 0, \"cores\": 4, \"work\": 100, \"activity\": 0}\n");
        assertThatThrownBy(() -> Workload.readTrace(trace)).hasMessageContaining(":1:").hasMessageContaining("activity");
    }

    /**
     * The bound stays below every run when jobs keep only part of their cores busy and co-located jobs slow each other:
     * a small calibrated day (8 R640 nodes, 6 h of arrivals).
     */
    @Test
    void theBoundHoldsWithPartlyBusyJobsAndInterference() {
        Map<String, String> params = new java.util.HashMap<>(Main.CALIBRATED_WORKLOAD);
        params.putAll(Map.of("cluster.nodes", "8", "cluster.types", "dell-r640:1", "workload.horizonSeconds", "21600",
                "workload.meanInterarrivalSeconds", "31", "planner.performanceCapWatts", "1000", "planner.ecoCapWatts", "50",
                "workload.activityMin", "0.3", "cluster.interference", "0.1", "optimizer.evaluations", "3"));
        Comparison c = Comparison.run("partly busy", SimConfig.of(params), 2);
        for (Baseline b : c.results().keySet()) {
            assertThat(c.get(b).finished()).as(b + " finished").isTrue();
            assertThat(c.bound().kWh()).as("bound vs " + b).isLessThanOrEqualTo(c.get(b).energyKWh());
        }
        assertThat(c.bound().kWh()).as("not a trivial bound").isGreaterThan(0.5 * c.get(Baseline.A).energyKWh());
    }
}
