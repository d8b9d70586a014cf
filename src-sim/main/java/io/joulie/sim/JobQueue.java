package io.joulie.sim;

import io.joulie.planner.PodClass;

import java.util.ArrayDeque;
import java.util.List;

/**
 * Jobs waiting for a node, by class, GPU boards and requested cores, each FIFO by arrival: the oldest job that fits
 * somewhere is found in O(classes × boards × cores) (a job that fits nowhere does not block others, as in
 * kube-scheduler).
 */
final class JobQueue {
    private static final PodClass[] CLASSES = PodClass.values();

    private final List<JobSpec> jobs;
    /** [class][boards][cores]: boards 0 for CPU jobs. */
    private final ArrayDeque<Integer>[][][] pending;
    private int size;
    private int performance;

    @SuppressWarnings("unchecked")
    JobQueue(List<JobSpec> jobs, int maxCores, int maxBoards) {
        this.jobs = jobs;
        pending = new ArrayDeque[CLASSES.length][maxBoards + 1][maxCores + 1];
        for (ArrayDeque<Integer>[][] byBoards : pending) {
            for (ArrayDeque<Integer>[] row : byBoards) {
                for (int c = 0; c <= maxCores; c++) {
                    row[c] = new ArrayDeque<>();
                }
            }
        }
    }

    /** Queues a job at the back, or at the front (an evicted job goes first). */
    void add(JobSpec j, boolean front) {
        ArrayDeque<Integer> q = pending[j.podClass().ordinal()][j.gpus()][j.cores()];
        if (front) {
            q.addFirst(j.id());
        } else {
            q.addLast(j.id());
        }
        size++;
        if (j.podClass() == PodClass.PERFORMANCE) {
            performance++;
        }
    }

    /**
     * Removes and returns the oldest job that fits, or null when none fits.
     *
     * @param maxFree per class and number of boards g, the most free cores a node offers that class with at least g
     *                free boards (g = 0: the nodes without GPUs, where CPU jobs run)
     */
    JobSpec pollOldestFitting(int[][] maxFree) {
        JobSpec best = null;
        for (PodClass c : CLASSES) {
            ArrayDeque<Integer>[][] byBoards = pending[c.ordinal()];
            for (int g = 0; g < byBoards.length; g++) {
                ArrayDeque<Integer>[] row = byBoards[g];
                for (int cores = 1; cores <= Math.min(maxFree[c.ordinal()][g], row.length - 1); cores++) {
                    Integer head = row[cores].peekFirst();
                    if (head != null && (best == null || jobs.get(head).arrival() < best.arrival())) {
                        best = jobs.get(head);
                    }
                }
            }
        }
        if (best != null) {
            pending[best.podClass().ordinal()][best.gpus()][best.cores()].pollFirst();
            size--;
            if (best.podClass() == PodClass.PERFORMANCE) {
                performance--;
            }
        }
        return best;
    }

    /** The cores of every waiting CPU job (no GPU boards), any class. */
    List<Integer> waitingCpuCores() {
        List<Integer> cores = new java.util.ArrayList<>();
        for (ArrayDeque<Integer>[][] byBoards : pending) {
            ArrayDeque<Integer>[] row = byBoards[0];
            for (int c = 1; c < row.length; c++) {
                for (int k = row[c].size(); k > 0; k--) {
                    cores.add(c);
                }
            }
        }
        return cores;
    }

    int size() {
        return size;
    }

    /** Performance-only jobs waiting. */
    int performance() {
        return performance;
    }
}
