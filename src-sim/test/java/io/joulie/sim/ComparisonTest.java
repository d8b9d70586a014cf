package io.joulie.sim;

import io.joulie.api.v1alpha1.Profile;
import io.joulie.planner.PodClass;
import io.joulie.sim.optimum.HindsightOptimizer;
import io.joulie.sim.optimum.Schedule;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ComparisonTest {

    @Test
    void aPolicysRunBecomesATotalScheduleOnOneTypeAndAPerTypeOneOnSeveral() {
        Map<String, Integer> typeOf = Map.of("n0", 0, "n1", 0, "n2", 1, "n3", 1);
        assertThat(Comparison.performanceByType(Map.of("n0", Profile.PERFORMANCE, "n1", Profile.ECO, "n2", Profile.PERFORMANCE,
                "n3", Profile.PERFORMANCE), typeOf, 2)).containsExactly(1, 2);

        Schedule one = Comparison.policySchedule(List.of(new int[] {3}, new int[] {2}), 1);
        assertThat(one.byType()).isFalse();
        assertThat(one.counts()).isDeepEqualTo(new int[][] {{3, 2}});
        Schedule two = Comparison.policySchedule(List.of(new int[] {1, 2}, new int[] {0, 2}, new int[] {1, 1}), 2);
        assertThat(two.byType()).isTrue();
        assertThat(two.counts()).isDeepEqualTo(new int[][] {{1, 0, 1}, {2, 2, 1}});
    }

    /** The bracket's upper end is the least acceptable schedule found: never above H, U when acceptable, or any policy that is. */
    @Test
    void theBestFeasibleScheduleIsNoWorseThanAnyAcceptableRun() {
        SimConfig config = SimConfig.of(Map.of("cluster.nodes", "4", "cluster.types", "dell-r640:0.5,dell-r940:0.5",
                "workload.jobs", "60", "workload.memoryBoundShare", "0.5", "workload.declaredShare", "0.5",
                "optimizer.evaluations", "12"));
        Comparison c = Comparison.run("two-types", config, 2);
        double level = config.maxPerformanceSlowdown() * c.get(Baseline.A).meanCompletion(PodClass.PERFORMANCE);
        assertThat(c.bestFeasibleKWh()).isLessThanOrEqualTo(c.get(Baseline.H).energyKWh());
        boolean anyPolicy = false;
        for (Baseline b : Baseline.policies()) {
            if (HindsightOptimizer.acceptable(c.get(b), level)) {
                anyPolicy = true;
                assertThat(c.bestFeasibleKWh()).as(b.title()).isLessThanOrEqualTo(c.get(b).energyKWh());
            }
        }
        assertThat(anyPolicy).as("some policy meets the service level here, else the test shows nothing").isTrue();
        // the search started from the policies' own per-type choices
        assertThat(c.optimum().seeds().keySet()).contains(Baseline.D.title());
        // the report names the seed H descends from: one of the seeds, and a total one when its first refinement won
        String from = c.optimum().seed();
        assertThat(c.optimum().seeds().keySet()).anySatisfy(k -> assertThat(from).startsWith(k));
        assertThat(from.endsWith("(the best total seed, refined first)") || c.optimum().seeds().containsKey(from)).isTrue();
    }
}
