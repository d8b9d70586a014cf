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
    void aGpuJobFitsWhereANodeHasItsBoardsAndCoresTogether() {
        List<JobSpec> gpuJobs = List.of(JobSpec.of(0, 0, 8, 4, 100, 1, null, false), JobSpec.of(1, 1, 2, 1, 100, 1, null, false),
                JobSpec.of(2, 2, 2, 0, 100, 1, null, false));
        JobQueue q = new JobQueue(gpuJobs, 16, 8);
        gpuJobs.forEach(j -> q.add(j, false));
        int[][] free = new int[PodClass.values().length][9];
        // a GPU node with 2 free boards and 16 free cores; no node without GPUs has a free core
        free[PodClass.UNCONSTRAINED.ordinal()][1] = 16;
        free[PodClass.UNCONSTRAINED.ordinal()][2] = 16;
        assertThat(q.pollOldestFitting(free).id()).as("the 4-board job waits; the CPU job finds no CPU node").isEqualTo(1);
        assertThat(q.pollOldestFitting(free)).isNull();
        free[PodClass.UNCONSTRAINED.ordinal()][0] = 2;
        assertThat(q.pollOldestFitting(free).id()).isEqualTo(2);
        free[PodClass.UNCONSTRAINED.ordinal()][4] = 4;
        assertThat(q.pollOldestFitting(free)).as("4 boards but only 4 cores with them").isNull();
        free[PodClass.UNCONSTRAINED.ordinal()][4] = 8;
        assertThat(q.pollOldestFitting(free).id()).isZero();
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
