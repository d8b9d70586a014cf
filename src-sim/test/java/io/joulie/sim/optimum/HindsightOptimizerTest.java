package io.joulie.sim.optimum;

import io.joulie.planner.PodClass;
import io.joulie.sim.Baseline;
import io.joulie.sim.Comparison;
import io.joulie.sim.JobSpec;
import io.joulie.sim.RunResult;
import io.joulie.sim.SimConfig;
import io.joulie.sim.Simulation;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static io.joulie.sim.optimum.EnergyBoundTest.F_ECO;
import static io.joulie.sim.optimum.EnergyBoundTest.ONE_NODE;
import static io.joulie.sim.optimum.EnergyBoundTest.WORK;
import static io.joulie.sim.optimum.EnergyBoundTest.job;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class HindsightOptimizerTest {
    private static HindsightOptimizer.Result optimize(List<JobSpec> jobs) {
        RunResult a = Simulation.standalone(ONE_NODE, jobs, Baseline.A).run();
        return HindsightOptimizer.optimize(ONE_NODE, jobs, Map.of(),
                new HindsightOptimizer.Options(50, 1, 10 * a.meanCompletion(PodClass.UNCONSTRAINED)));
    }

    @Test
    void oneFullNodeJobSolvedByHand() {
        // The best schedule puts the node to eco at once. The guard lets it drain for the first tick (60 s at the
        // performance cap, 420 W, 960 core-seconds done), then commits eco: 260 W, 16·v core-seconds per second for the
        // remaining 56,640. Energy: 420·60 + 260·(the whole steps until the job is done).
        double v = 1 - (1 - F_ECO) * 0.5;
        double ecoSeconds = (WORK - 16 * 60) / (16 * v);
        double byHand = (420 * 60 + 260 * Math.ceil(ecoSeconds)) / 3.6e6;
        HindsightOptimizer.Result r = optimize(List.of(job(0.5, null)));
        assertThat(r.run().energyKWh()).isCloseTo(byHand, within(1e-9)).isCloseTo(0.32182, within(1e-5));
        assertThat(r.run().makespanSeconds()).isCloseTo(60 + ecoSeconds, within(1e-6));
        assertThat(r.schedule()[0]).as("eco from the first tick").isZero();
        assertThat(r.run().violationSeconds()).isZero();
        // 0.5 % above the bound: the one tick of draining
        assertThat(r.run().energyKWh() / EnergyBound.of(ONE_NODE, List.of(job(0.5, null))).kWh()).isCloseTo(1.0053, within(1e-4));
    }

    @Test
    void aPerformanceOnlyJobIsNeverCappedSoTheOptimumIsAllPerformance() {
        HindsightOptimizer.Result r = optimize(List.of(job(0.5, "performance")));
        assertThat(r.run().violationSeconds()).isZero();
        assertThat(r.run().energyKWh()).isCloseTo(0.42, within(1e-9));
    }

    @Test
    void theOptimumIsNeverWorseThanThePolicyItStartsFrom() {
        SimConfig config = SimConfig.of(Map.of("workload.jobs", "80", "optimizer.evaluations", "60"));
        Comparison c = Comparison.run("short", config, 2);
        RunResult h = c.get(Baseline.H);
        assertThat(h.violationSeconds()).isZero();
        assertThat(h.finished()).isTrue();
        for (Baseline b : Baseline.policies()) {
            assertThat(h.energyKWh()).isLessThanOrEqualTo(c.get(b).energyKWh());
        }
        assertThat(c.optimum().evaluations()).isLessThanOrEqualTo(60 + 1);
        // replaying the schedule found gives the same run
        assertThat(HindsightOptimizer.evaluate(config, io.joulie.sim.Workload.of(config.workload()), c.optimum().schedule()).energyKWh())
                .isEqualTo(h.energyKWh());
        assertThat(Arrays.stream(c.optimum().schedule()).allMatch(hp -> hp >= 0 && hp <= config.nodes())).isTrue();
    }
}
