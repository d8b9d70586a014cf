package io.joulie.sim.optimum;

import io.joulie.sim.Baseline;
import io.joulie.sim.JobSpec;
import io.joulie.sim.RunResult;
import io.joulie.sim.SimConfig;
import io.joulie.sim.Simulation;
import io.joulie.sim.Workload;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.joulie.sim.optimum.EnergyBoundTest.F_ECO;
import static io.joulie.sim.optimum.EnergyBoundTest.ONE_NODE;
import static io.joulie.sim.optimum.EnergyBoundTest.WORK;
import static io.joulie.sim.optimum.EnergyBoundTest.job;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class TimeIndexedBoundTest {
    /** Exact groups (sensitivity to 0.001, cores as they are): the LP is then never below the θ bound. */
    static final TimeIndexedBound.Options EXACT = new TimeIndexedBound.Options(900, 1000, Double.POSITIVE_INFINITY, false);

    @Test
    void oneFullNodeEcoJobSolvedByHand() {
        // T_lb = 1 h; at the eco cap the job needs 1/v node-hours, more than the hour there is: the LP runs an hour's
        // worth at 260 W inside T_lb and the rest after it, where its node-time is paid at idle power: 260 W for 1/v h
        double v = 1 - (1 - F_ECO) * 0.5;
        double byHand = 260 * WORK / (16 * v) / 3.6e6;
        TimeIndexedBound b = TimeIndexedBound.of(ONE_NODE, List.of(job(0.5, null)), EXACT);
        assertThat(b.solved()).isTrue();
        assertThat(b.slots()).isEqualTo(4);
        assertThat(b.kWh()).isCloseTo(byHand, within(1e-6)).isCloseTo(0.32014, within(1e-5));
    }

    @Test
    void aPerformanceOnlyJobRunsAtFullPowerForItsHour() {
        TimeIndexedBound b = TimeIndexedBound.of(ONE_NODE, List.of(job(0.5, "performance")), EXACT);
        assertThat(b.kWh()).isCloseTo(0.42, within(1e-6));
    }

    /**
     * Work that arrives late cannot use the node-time before it: a 1-core performance-only job keeps the node on for
     * 10 h, and a full-node eco-tolerant job arrives in the last hour. The θ bound prices the late job at its eco
     * point as if the idle hours before could absorb its longer run; the LP has one hour of node for it, the rest past
     * T_lb at idle power. So the LP is strictly tighter, and still below what the twin's schedules use.
     */
    @Test
    void workReleasedLateIsTighterThanTheThetaBoundAndBelowEverySchedule() {
        List<JobSpec> jobs = List.of(JobSpec.of(0, 0, 1, 10 * 3600, 1, "performance"), JobSpec.of(1, 9 * 3600, 15, 15 * 3600, 0.5, null));
        double theta = EnergyBound.of(ONE_NODE, jobs).kWh();
        TimeIndexedBound lp = TimeIndexedBound.of(ONE_NODE, jobs, EXACT);
        assertThat(lp.solved()).isTrue();
        assertThat(lp.kWh()).as("tighter than θ (%s)", theta).isGreaterThan(theta * 1.01);
        for (Baseline p : List.of(Baseline.A, Baseline.B, Baseline.C, Baseline.D)) {
            RunResult r = Simulation.standalone(ONE_NODE, jobs, p).run();
            assertThat(lp.kWh()).as("vs %s", p).isLessThanOrEqualTo(r.energyKWh() + 1e-9);
        }
    }

    /**
     * Seeded small workloads: θ ≤ LP ≤ every policy's energy to finish, with exact groups and with the coarse buckets
     * `bench` uses (their cuts carry the θ bound's exact prices).
     */
    @Test
    void betweenTheThetaBoundAndEverySchedule() {
        for (long seed = 1; seed <= 3; seed++) {
            SimConfig config = SimConfig.of(Map.of("cluster.nodes", "3", "workload.jobs", "40", "workload.seed", Long.toString(seed),
                    "workload.sensitivityMin", "0.2", "workload.ecoShare", seed % 2 == 0 ? "0.3" : "0"));
            List<JobSpec> jobs = Workload.of(config.workload());
            double theta = EnergyBound.of(config, jobs).kWh();
            double exact = TimeIndexedBound.of(config, jobs, EXACT).kWh();
            double coarse = TimeIndexedBound.of(config, jobs).kWh();
            assertThat(exact).as("seed %d: LP vs θ", seed).isGreaterThanOrEqualTo(theta * (1 - 1e-9));
            assertThat(coarse).as("seed %d: coarse buckets vs θ", seed).isGreaterThanOrEqualTo(theta * (1 - 1e-9));
            List<RunResult> runs = new ArrayList<>();
            for (Baseline p : List.of(Baseline.A, Baseline.B, Baseline.C, Baseline.D)) {
                runs.add(Simulation.standalone(config, jobs, p).run());
            }
            for (RunResult r : runs) {
                assertThat(r.finished()).isTrue();
                assertThat(exact).as("seed %d: LP vs %s", seed, r.baseline()).isLessThanOrEqualTo(r.energyKWh());
                assertThat(coarse).as("seed %d: coarse LP vs %s", seed, r.baseline()).isLessThanOrEqualTo(r.energyKWh());
            }
        }
    }

    /**
     * Hour slots are unions of quarter-hour slots (the last one ends at T_lb in both), so the hour LP relaxes the
     * quarter-hour one: θ ≤ LP(hour) ≤ LP(15 min). {@code solvedOrCoarser} keeps the 15-minute LP when it solves.
     */
    @Test
    void longerSlotsLoosenTheBoundAndAreUsedOnlyWhenTheShortOnesDoNotSolve() {
        SimConfig config = SimConfig.of(Map.of("cluster.nodes", "3", "workload.jobs", "60", "workload.seed", "2",
                "workload.meanInterarrivalSeconds", "60", "workload.sensitivityMin", "0.2", "workload.ecoShare", "0.3"));
        List<JobSpec> jobs = Workload.of(config.workload());
        double theta = EnergyBound.of(config, jobs).kWh();
        TimeIndexedBound quarter = TimeIndexedBound.of(config, jobs);
        TimeIndexedBound hour = TimeIndexedBound.of(config, jobs, new TimeIndexedBound.Options(3600, 5, Double.POSITIVE_INFINITY, true));
        assertThat(quarter.solved()).isTrue();
        assertThat(hour.solved()).isTrue();
        assertThat(hour.slotSeconds()).isEqualTo(3600);
        assertThat(hour.slots()).isLessThan(quarter.slots());
        assertThat(hour.kWh()).isGreaterThanOrEqualTo(theta * (1 - 1e-9)).isLessThanOrEqualTo(quarter.kWh() * (1 + 1e-9));
        TimeIndexedBound chosen = TimeIndexedBound.solvedOrCoarser(config, jobs);
        assertThat(chosen.slotSeconds()).isEqualTo(900);
        assertThat(chosen.kWh()).isEqualTo(quarter.kWh());
    }

    @Test
    void aDeadlineOnPerformanceOnlyWorkOnlyTightens() {
        SimConfig config = SimConfig.of(Map.of("cluster.nodes", "2", "workload.jobs", "30", "workload.seed", "5"));
        List<JobSpec> jobs = Workload.of(config.workload());
        double free = TimeIndexedBound.of(config, jobs, EXACT).kWh();
        double due = TimeIndexedBound.of(config, jobs, new TimeIndexedBound.Options(900, 1000, 1.05, false)).kWh();
        assertThat(due).isGreaterThanOrEqualTo(free * (1 - 1e-9));
        // all-performance with no queueing finishes every job in its own time: within any ρ ≥ 1
        RunResult a = Simulation.standalone(config, jobs, Baseline.A).run();
        assertThat(due).isLessThanOrEqualTo(a.energyKWh());
    }

    @Test
    void badOptionsAreRefusedWithAMessage() {
        assertThatThrownBy(() -> new TimeIndexedBound.Options(0, 20, 1, true)).hasMessageContaining("slot length");
        assertThatThrownBy(() -> new TimeIndexedBound.Options(900, 20, 0.5, true)).hasMessageContaining("slowdown");
    }
}
