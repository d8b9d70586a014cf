package io.joulie.sim;

import io.joulie.planner.PodClass;

import java.util.ArrayDeque;
import java.util.List;

/**
 * Jobs waiting for a node, by class and requested cores, each FIFO by arrival: the oldest job that fits somewhere
 * is found in O(classes × cores) (a job that fits nowhere does not block others, as in kube-scheduler).
 */
final class JobQueue {
    private static final PodClass[] CLASSES = PodClass.values();

    private final List<JobSpec> jobs;
    private final ArrayDeque<Integer>[][] pending;
    private int size;
    private int performance;

    @SuppressWarnings("unchecked")
    JobQueue(List<JobSpec> jobs, int maxCores) {
        this.jobs = jobs;
        pending = new ArrayDeque[CLASSES.length][maxCores + 1];
        for (ArrayDeque<Integer>[] row : pending) {
            for (int c = 0; c <= maxCores; c++) {
                row[c] = new ArrayDeque<>();
            }
        }
    }

    /** Queues a job at the back, or at the front (an evicted job goes first). */
    void add(JobSpec j, boolean front) {
        ArrayDeque<Integer> q = pending[j.podClass().ordinal()][j.cores()];
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
     * Removes and returns the oldest job that fits, given the most free cores a node offers each class, or null
     * when none fits.
     */
    JobSpec pollOldestFitting(int[] maxFreeByClass) {
        JobSpec best = null;
        for (PodClass c : CLASSES) {
            ArrayDeque<Integer>[] row = pending[c.ordinal()];
            for (int cores = 1; cores <= Math.min(maxFreeByClass[c.ordinal()], row.length - 1); cores++) {
                Integer head = row[cores].peekFirst();
                if (head != null && (best == null || jobs.get(head).arrival() < best.arrival())) {
                    best = jobs.get(head);
                }
            }
        }
        if (best != null) {
            pending[best.podClass().ordinal()][best.cores()].pollFirst();
            size--;
            if (best.podClass() == PodClass.PERFORMANCE) {
                performance--;
            }
        }
        return best;
    }

    int size() {
        return size;
    }

    /** Performance-only jobs waiting. */
    int performance() {
        return performance;
    }
}
