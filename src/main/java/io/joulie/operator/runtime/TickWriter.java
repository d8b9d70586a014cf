package io.joulie.operator.runtime;

import io.joulie.operator.cluster.LeadershipLost;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * Carries out a tick's writes in waves: every write of a wave is done before the next wave starts (the raises to
 * performance before anything is lowered), and within a wave up to {@code parallelism} writes are in flight at
 * once. A node's writes take a few API round trips; one after the other, 1,000 changed nodes took minutes on the
 * scale benchmark's control plane (docs/benchmarks.md). Once {@code leading} says the Lease is lost, no further
 * write starts; a write that finds it lost midway (its next request is fenced, {@link LeadershipLost}) stops the
 * tick the same way. Once the tick's deadline has passed no further write starts either (the rest is left for later).
 */
final class TickWriter {
    /** Writes in flight at once: enough to hide API latency, few enough not to flood the API server. */
    static final int PARALLELISM = 16;

    /**
     * How many writes failed, whether leadership was lost before all were started, and how many were not started because
     * the deadline had passed.
     */
    record Result(int failures, boolean interrupted, int unstarted) {
    }

    private TickWriter() {
    }

    /** Each task writes one node and returns whether it succeeded; a task that throws counts as failed. */
    static Result run(List<List<BooleanSupplier>> waves, BooleanSupplier leading, int parallelism) {
        return run(waves, leading, () -> true, parallelism);
    }

    /**
     * As {@link #run(List, BooleanSupplier, int)}; no task starts once {@code beforeDeadline} says false (those left are
     * counted as not started, not as failed).
     */
    static Result run(List<List<BooleanSupplier>> waves, BooleanSupplier leading, BooleanSupplier beforeDeadline, int parallelism) {
        int failures = 0;
        int unstarted = 0;
        AtomicBoolean interrupted = new AtomicBoolean();
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            Semaphore slots = new Semaphore(parallelism);
            for (List<BooleanSupplier> wave : waves) {
                List<Future<Boolean>> running = new ArrayList<>(wave.size());
                for (BooleanSupplier task : wave) {
                    slots.acquireUninterruptibly();
                    if (interrupted.get() || !leading.getAsBoolean()) {
                        slots.release();
                        interrupted.set(true);
                        break;
                    }
                    if (!beforeDeadline.getAsBoolean()) {
                        slots.release();
                        unstarted++;
                        continue;
                    }
                    running.add(executor.submit(() -> {
                        try {
                            return task.getAsBoolean();
                        } catch (LeadershipLost e) {
                            interrupted.set(true);
                            throw e;
                        } finally {
                            slots.release();
                        }
                    }));
                }
                for (Future<Boolean> f : running) {
                    failures += succeeded(f) ? 0 : 1;
                }
                if (interrupted.get()) {
                    break;
                }
            }
        }
        return new Result(failures, interrupted.get(), unstarted);
    }

    private static boolean succeeded(Future<Boolean> f) {
        try {
            return f.get();
        } catch (ExecutionException e) {
            return e.getCause() instanceof LeadershipLost; // not a failure of the node: the tick stops
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
