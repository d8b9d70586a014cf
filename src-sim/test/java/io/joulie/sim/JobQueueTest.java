package io.joulie.sim;

import io.joulie.planner.PodClass;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class JobQueueTest {
    private final List<JobSpec> jobs = List.of(
            JobSpec.of(0, 0, 8, 100, 1, "performance"),
            JobSpec.of(1, 1, 2, 100, 1, null),
            JobSpec.of(2, 2, 1, 100, 1, "eco"),
            JobSpec.of(3, 3, 2, 100, 1, null));

    /** The most free cores per class on the nodes without GPUs. */
    private static int[][] free(int performance, int eco, int unconstrained) {
        int[][] f = new int[PodClass.values().length][1];
        f[PodClass.PERFORMANCE.ordinal()][0] = performance;
        f[PodClass.ECO.ordinal()][0] = eco;
        f[PodClass.UNCONSTRAINED.ordinal()][0] = unconstrained;
        return f;
    }

    @Test
    void theOldestJobThatFitsGoesFirstAndOneThatFitsNowhereBlocksNoOne() {
        JobQueue q = new JobQueue(jobs, 16, 0);
        jobs.forEach(j -> q.add(j, false));
        assertThat(q.size()).isEqualTo(4);
        assertThat(q.performance()).isEqualTo(1);
        assertThat(q.pollOldestFitting(free(4, 0, 4)).id()).as("the 8-core performance job fits nowhere").isEqualTo(1);
        assertThat(q.pollOldestFitting(free(16, 0, 16)).id()).isZero();
        assertThat(q.performance()).isZero();
        assertThat(q.pollOldestFitting(free(16, 0, 16)).id()).as("no eco node: the eco job waits").isEqualTo(3);
        assertThat(q.pollOldestFitting(free(16, 0, 16))).isNull();
        assertThat(q.pollOldestFitting(free(0, 1, 0)).id()).isEqualTo(2);
        assertThat(q.size()).isZero();
    }

    @Test
    void anEvictedJobGoesBackToTheFront() {
        JobQueue q = new JobQueue(jobs, 16, 0);
        q.add(jobs.get(3), false);
        q.add(jobs.get(1), true);
        assertThat(q.pollOldestFitting(free(16, 16, 16)).id()).isEqualTo(1);
        q.add(jobs.get(1), false);
        q.add(jobs.get(3), true);
        assertThat(q.pollOldestFitting(free(16, 16, 16)).id()).as("front of its queue, though younger").isEqualTo(3);
    }
}
