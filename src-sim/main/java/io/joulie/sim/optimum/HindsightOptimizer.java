package io.joulie.sim.optimum;

import io.joulie.planner.Planner;
import io.joulie.planner.PodClass;
import io.joulie.sim.Baseline;
import io.joulie.sim.InProcessPlanner;
import io.joulie.sim.JobSpec;
import io.joulie.sim.RunResult;
import io.joulie.sim.SimConfig;
import io.joulie.sim.Simulation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The best schedule found with hindsight: the number of performance nodes at every planner tick, chosen knowing
 * every job in advance, and run through the operator's own eco selection and guard (so the same caps, the same
 * labels, the same contract: a drain is held until the last performance-only job left). Energy to finish is
 * evaluated by running the twin itself; a schedule that leaves a job unfinished, runs a performance-only job under
 * the eco cap, or makes performance-only jobs slower on average than the service level allows is rejected.
 *
 * <p>Search: start from the best of the seeds (every policy's own per-tick count, all-performance, and constant
 * counts), then a local search that raises or lowers the count over blocks of ticks, from long blocks and large
 * steps to short blocks and single nodes, keeping every change that saves energy, until no change helps or the
 * evaluation budget is spent. The result is never worse than a seed it accepts, so never worse than any policy that
 * meets the same service level (one that slows performance-only work more can use less energy).
 */
public final class HindsightOptimizer {
    /**
     * @param evaluations                the most runs of the twin to spend
     * @param threads                    runs in parallel
     * @param maxPerformanceCompletion   a schedule is acceptable only if performance-only jobs complete within this
     *                                   mean time (seconds): the service level the policies are held to
     */
    public record Options(int evaluations, int threads, double maxPerformanceCompletion) {
        public Options {
            SimConfig.require(evaluations >= 1, "optimizer.evaluations must be ≥ 1");
            SimConfig.require(threads >= 1, "threads must be ≥ 1");
        }
    }

    /**
     * @param run         the best run found (baseline H)
     * @param schedule    its performance-node count per planner tick
     * @param evaluations runs of the twin spent
     * @param seed        the seed the search started from
     */
    public record Result(RunResult run, int[] schedule, int evaluations, String seed) {
    }

    private final SimConfig config;
    private final List<JobSpec> jobs;
    private final Options options;
    private int evaluations;

    private HindsightOptimizer(SimConfig config, List<JobSpec> jobs, Options options) {
        this.config = config;
        this.jobs = jobs;
        this.options = options;
    }

    /**
     * @param seeds per-tick performance-node counts to start from, by name (e.g. the policies' own)
     */
    public static Result optimize(SimConfig config, List<JobSpec> jobs, Map<String, int[]> seeds, Options options) {
        return new HindsightOptimizer(config, jobs, options).search(seeds);
    }

    /** Runs the twin with this schedule. */
    public static RunResult evaluate(SimConfig config, List<JobSpec> jobs, int[] schedule) {
        Planner planner = new Planner(config.planner(), new ScheduledCount(schedule, config.tickSeconds()));
        return new Simulation(config, jobs, Baseline.H, new InProcessPlanner(planner, config.tickSeconds(), null)).run();
    }

    private Result search(Map<String, int[]> given) {
        int n = config.nodes();
        Map<String, int[]> seeds = new LinkedHashMap<>(given);
        seeds.putIfAbsent("all performance", new int[] {n});
        for (int k = 0; k < 4; k++) {
            int hp = (int) Math.round(n * k / 4.0);
            seeds.putIfAbsent("constant " + hp, new int[] {hp});
        }
        ExecutorService pool = Executors.newFixedThreadPool(options.threads());
        try {
            List<String> names = new ArrayList<>(seeds.keySet());
            List<RunResult> runs = evaluateAll(pool, names.stream().map(seeds::get).toList());
            int bestIndex = -1;
            for (int i = 0; i < runs.size(); i++) {
                if (acceptable(runs.get(i)) && (bestIndex < 0 || runs.get(i).energyKWh() < runs.get(bestIndex).energyKWh())) {
                    bestIndex = i;
                }
            }
            SimConfig.require(bestIndex >= 0, "no seed schedule finishes every job without a violation within the service level");
            String seed = names.get(bestIndex);
            RunResult best = runs.get(bestIndex);
            int ticks = (int) Math.ceil(best.makespanSeconds() / config.tickSeconds()) + 1;
            int[] schedule = stretch(seeds.get(seed), ticks);
            List<Integer> steps = new ArrayList<>();
            for (int step = Math.max(1, n / 4); ; step = Math.max(1, step / 4)) {
                steps.add(step);
                if (step == 1) {
                    break;
                }
            }
            for (int block = Integer.highestOneBit(Math.max(1, ticks / 2)); block >= 1; block /= 2) {
                for (int step : steps) {
                    boolean improved = true;
                    while (improved && evaluations < options.evaluations()) {
                        improved = false;
                        for (int from = 0; from < ticks && evaluations < options.evaluations(); from += block) {
                            List<int[]> candidates = new ArrayList<>();
                            for (int sign : new int[] {-1, 1}) {
                                int[] c = shifted(schedule, from, Math.min(ticks, from + block), sign * step, n);
                                if (c != null) {
                                    candidates.add(c);
                                }
                            }
                            List<RunResult> tried = evaluateAll(pool, candidates);
                            for (int i = 0; i < tried.size(); i++) {
                                RunResult r = tried.get(i);
                                if (acceptable(r) && r.energyKWh() < best.energyKWh() - 1e-12) {
                                    best = r;
                                    schedule = candidates.get(i);
                                    improved = true;
                                }
                            }
                        }
                    }
                }
            }
            return new Result(best, schedule, evaluations, seed);
        } finally {
            pool.shutdownNow();
        }
    }

    private boolean acceptable(RunResult r) {
        double perf = r.meanCompletion(PodClass.PERFORMANCE);
        return r.finished() && r.violationSeconds() == 0 && !(perf > options.maxPerformanceCompletion());
    }

    /** The schedule with {@code delta} added over ticks [from, to), or null when nothing changes within [0, n]. */
    private static int[] shifted(int[] schedule, int from, int to, int delta, int n) {
        int[] c = schedule.clone();
        boolean changed = false;
        for (int t = from; t < to; t++) {
            int v = Math.clamp(c[t] + delta, 0, n);
            changed |= v != c[t];
            c[t] = v;
        }
        return changed ? c : null;
    }

    /** A per-tick schedule of this length: the seed, its last value repeated. */
    private static int[] stretch(int[] seed, int ticks) {
        int[] s = Arrays.copyOf(seed, Math.max(ticks, seed.length));
        for (int i = seed.length; i < s.length; i++) {
            s[i] = seed[seed.length - 1];
        }
        return s;
    }

    private List<RunResult> evaluateAll(ExecutorService pool, List<int[]> schedules) {
        List<Future<RunResult>> futures = new ArrayList<>();
        for (int[] s : schedules) {
            futures.add(pool.submit(() -> evaluate(config, jobs, s)));
        }
        evaluations += schedules.size();
        List<RunResult> results = new ArrayList<>();
        try {
            for (Future<RunResult> f : futures) {
                results.add(f.get());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
        }
        return results;
    }
}
