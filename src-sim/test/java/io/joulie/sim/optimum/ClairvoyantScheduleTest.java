package io.joulie.sim.optimum;

import io.joulie.planner.PodClass;
import io.joulie.sim.Baseline;
import io.joulie.sim.JobSpec;
import io.joulie.sim.RunResult;
import io.joulie.sim.SimConfig;
import io.joulie.sim.Simulation;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ClairvoyantScheduleTest {
    /** Two 16-core nodes of the seed-era model, caps 500 / 260 W, 60 s ticks. */
    static final SimConfig TWO_NODES = SimConfig.of(Map.of("cluster.nodes", "2", "workload.jobs", "1"));

    /** One performance-only job of 8 cores for an hour from t = 0, and four 4-core jobs insensitive to the clock. */
    static List<JobSpec> jobs() {
        List<JobSpec> jobs = new ArrayList<>(List.of(JobSpec.of(0, 0, 8, 8 * 3600, 1, "performance")));
        for (int i = 1; i <= 4; i++) {
            jobs.add(JobSpec.of(i, 30 * i, 4, 4 * 5400, 0, null));
        }
        return jobs;
    }

    @Test
    void theCountsFollowThePerformanceDemandAheadByHand() {
        // the performance job holds 8 cores over ticks 0..60 (it ends at 3,600 s); at fill 0.5 that is 8 / (16 · 0.5) = 1
        // node while it runs, then none; the clock-insensitive jobs size nothing
        Schedule s = ClairvoyantSchedule.of(TWO_NODES, jobs(), new ClairvoyantSchedule.Variant(0.5, false));
        assertThat(s.byType()).isTrue();
        // the pool of 32 cores holds all five jobs at once: each starts at its arrival; the last ends at 5,520 s (tick 92),
        // one tail tick after it
        assertThat(s.counts()).hasDimensions(1, 92 + 2);
        assertThat(s.count(0, 0)).isEqualTo(1);
        assertThat(s.count(0, 60)).isEqualTo(1);
        assertThat(s.count(0, 61)).isZero();
        assertThat(s.count(0, 1000)).as("after the estimated end: room for the largest performance-only job").isEqualTo(1);
        // at fill 0.25 the same 8 cores need 2 nodes
        assertThat(ClairvoyantSchedule.of(TWO_NODES, jobs(), new ClairvoyantSchedule.Variant(0.25, false)).count(0, 0)).isEqualTo(2);
        // a job arriving later is covered LOOKAHEAD_TICKS ticks before it arrives
        Schedule later = ClairvoyantSchedule.of(TWO_NODES, List.of(JobSpec.of(0, 600, 8, 8 * 600, 1, "performance")),
                new ClairvoyantSchedule.Variant(0.5, false));
        assertThat(later.count(0, 10 - ClairvoyantSchedule.LOOKAHEAD_TICKS - 1)).isZero();
        assertThat(later.count(0, 10 - ClairvoyantSchedule.LOOKAHEAD_TICKS)).isEqualTo(1);
    }

    @Test
    void jobsQueueForTheClustersCoresFirstComeFirstServed() {
        // 32 cores: two 16-core jobs at 0 fill them; a third at 10 s starts when the first ends (1,000 s) and runs 500 s;
        // a fourth, of 8 cores at 20 s, waits behind it (first come, first served): the pool is full until 1,500 s
        List<JobSpec> jobs = List.of(JobSpec.of(0, 0, 16, 16 * 1000, 1, null), JobSpec.of(1, 0, 16, 16 * 2000, 1, null),
                JobSpec.of(2, 10, 16, 16 * 500, 1, null), JobSpec.of(3, 20, 8, 8 * 100, 1, null));
        assertThat(ClairvoyantSchedule.starts(jobs, 32, 0)).containsExactly(0, 0, 1000, 1500);
    }

    @Test
    void ecoOnlyDemandKeepsNodesEco() {
        // an eco-only job of 16 cores needs a whole eco node at fill 1: at most one of two stays performance
        List<JobSpec> jobs = List.of(JobSpec.of(0, 0, 16, 16 * 600, 1, "eco"), JobSpec.of(1, 0, 16, 16 * 600, 1, "performance"));
        Schedule s = ClairvoyantSchedule.of(TWO_NODES, jobs, new ClairvoyantSchedule.Variant(1, false));
        assertThat(s.count(0, 0)).isEqualTo(1);
    }

    @Test
    void whereEcoIsFreeTheScheduleIsFeasibleAndNeverWorseThanAllPerformance() {
        // the other jobs lose no speed under the eco cap, so every node not needed for the performance job is better eco
        RunResult a = Simulation.standalone(TWO_NODES, jobs(), Baseline.A).run();
        ClairvoyantSchedule.Result u = ClairvoyantSchedule.best(TWO_NODES, jobs(), 2, 1.05 * a.meanCompletion(PodClass.PERFORMANCE));
        assertThat(u.tried()).hasSize(ClairvoyantSchedule.VARIANTS.size());
        assertThat(u.variant()).startsWith("clairvoyant fill");
        assertThat(u.run().finished()).isTrue();
        assertThat(u.run().violationSeconds()).isZero();
        assertThat(u.run().meanCompletion(PodClass.PERFORMANCE)).isLessThanOrEqualTo(1.05 * a.meanCompletion(PodClass.PERFORMANCE));
        assertThat(u.run().energyKWh()).isLessThan(a.energyKWh());
        // and it is the schedule's own run
        assertThat(HindsightOptimizer.evaluate(TWO_NODES, jobs(), u.schedule()).energyKWh()).isEqualTo(u.run().energyKWh());
    }
}
