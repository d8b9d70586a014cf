package io.joulie.sim.optimum;

import io.joulie.sim.Baseline;
import io.joulie.sim.Comparison;
import io.joulie.sim.JobSpec;
import io.joulie.sim.RunResult;
import io.joulie.sim.SimConfig;
import io.joulie.sim.Simulation;
import io.joulie.sim.Workload;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class EnergyBoundTest {
    /** One 16-core node of the seed-era model (idle 80 W, 420 W at full load, β 1.35), caps 500 / 260 W. */
    static final SimConfig ONE_NODE = SimConfig.of(Map.of("cluster.nodes", "1", "workload.jobs", "1"));
    /** 16 cores for an hour at full speed. */
    static final double WORK = 16 * 3600;
    /** The frequency the 260 W cap leaves a full node: 80 + 340 f^1.35 = 260. */
    static final double F_ECO = Math.pow(180.0 / 340, 1 / 1.35);

    static JobSpec job(double sensitivity, String profile) {
        return JobSpec.of(0, 0, 16, WORK, sensitivity, profile);
    }

    @Test
    void oneFullNodeJobSolvedByHand() {
        // the job keeps all 16 cores busy; at the eco cap it runs at 1 − (1 − f)·0.5 of full speed and the node draws 260 W.
        // Per unit of work, eco costs (180 + θ·80)/(16·v) against performance's (340 + θ·80)/16: eco is cheaper for
        // every θ, and LB(θ) = (1 − θ)·80·3600 + W·(180 + 80θ)/(16·v) grows with θ (W·80/(16·v) > 80·3600), so θ = 1:
        // the node at 260 W for the whole of the slower run.
        double v = 1 - (1 - F_ECO) * 0.5;
        double byHand = 260 * WORK / (16 * v) / 3.6e6;
        EnergyBound b = EnergyBound.of(ONE_NODE, List.of(job(0.5, null)));
        assertThat(b.makespanLowerBound()).isEqualTo(3600.0);
        assertThat(b.theta()).isEqualTo(1.0);
        assertThat(b.kWh()).isCloseTo(byHand, within(1e-9)).isCloseTo(0.32014, within(1e-5));
    }

    @Test
    void aPerformanceOnlyJobCannotBeCappedSoItsBoundIsFullSpeed() {
        EnergyBound b = EnergyBound.of(ONE_NODE, List.of(job(0.5, "performance")));
        assertThat(b.kWh()).as("420 W for an hour").isCloseTo(0.42, within(1e-9));
        RunResult a = Simulation.standalone(ONE_NODE, List.of(job(0.5, "performance")), Baseline.A).run();
        assertThat(a.energyKWh()).as("and all-performance reaches it").isCloseTo(0.42, within(1e-9));
    }

    @Test
    void theMakespanBoundCountsEveryCoreOfTheCluster() {
        // 2 nodes × 16 cores; 4 jobs of 8 cores × 1 h arriving at 0 and one more at 100 s: the cores could absorb the
        // first four by 1 h; the last arrives at 100 s and needs an hour on its own
        List<JobSpec> jobs = List.of(JobSpec.of(0, 0, 8, 8 * 3600, 1, null), JobSpec.of(1, 0, 8, 8 * 3600, 1, null),
                JobSpec.of(2, 0, 8, 8 * 3600, 1, null), JobSpec.of(3, 0, 8, 8 * 3600, 1, null),
                JobSpec.of(4, 100, 8, 8 * 3600, 1, null));
        assertThat(EnergyBound.makespanLowerBound(jobs, 32, 0, 1)).isEqualTo(Math.max(3700, 5 * 8 * 3600 / 32.0));
    }

    /** The bound never exceeds a schedule the twin found, across seeded workloads. */
    @Test
    void theBoundIsBelowEveryScheduleAcrossSeeds() {
        for (long seed = 1; seed <= 4; seed++) {
            SimConfig config = SimConfig.of(Map.of("workload.jobs", "60", "workload.seed", Long.toString(seed),
                    "workload.sensitivityMin", "0.2", "workload.ecoShare", seed % 2 == 0 ? "0.2" : "0", "optimizer.evaluations", "40"));
            Comparison c = Comparison.run("seed " + seed, config, 2);
            assertThat(c.bound().kWh()).isPositive();
            for (RunResult r : c.results().values()) {
                assertThat(r.finished()).isTrue();
                assertThat(c.bound().kWh()).as("seed %d: bound vs %s", seed, r.baseline()).isLessThanOrEqualTo(r.energyKWh());
            }
            assertThat(c.bound().kWh()).isEqualTo(EnergyBound.of(config, Workload.of(config.workload())).kWh());
        }
    }

    /**
     * The bound prices a job over the frequencies a cap can leave a node of mixed intensities: its minimum over an
     * interval is never above the minimum found on a fine grid (so the bound stays a bound), and close to it.
     */
    @Test
    void theCheapestFrequencyOverAnIntervalIsNeverAboveAFineGrid() {
        java.util.SplittableRandom r = new java.util.SplittableRandom(7);
        for (double beta : new double[] {2, 3, 1.35}) {
            for (int k = 0; k < 200; k++) {
                double a = r.nextDouble(1, 400);
                double b = r.nextDouble(1, 400);
                double s = r.nextDouble(0.05, 1);
                double lo = r.nextDouble(0.4, 1);
                double hi = r.nextDouble(lo, 1);
                double grid = Double.POSITIVE_INFINITY;
                for (int i = 0; i <= 20000; i++) {
                    double f = lo + (hi - lo) * i / 20000;
                    grid = Math.min(grid, (a + b * Math.pow(f, beta)) / (1 - s + s * f));
                }
                double min = EnergyBound.minOver(a, b, beta, s, lo, hi);
                assertThat(min).as("β %s a %s b %s s %s [%s, %s]", beta, a, b, s, lo, hi)
                        .isLessThanOrEqualTo(grid + 1e-9).isGreaterThan(grid * (1 - 1e-6));
            }
        }
    }
}
