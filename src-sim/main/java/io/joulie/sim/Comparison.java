package io.joulie.sim;

import io.joulie.planner.PodClass;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs the baselines on one workload (the same jobs for all) and compares them with A.
 *
 * @param name    scenario name
 * @param config  the configuration
 * @param results per baseline
 */
public record Comparison(String name, SimConfig config, Map<Baseline, RunResult> results) {

    public Comparison {
        results = new EnumMap<>(results);
    }

    /** Runs A, B and C, in parallel on up to {@code threads} threads. */
    public static Comparison run(String name, SimConfig config, int threads) {
        List<JobSpec> jobs = Workload.of(config.workload());
        ExecutorService pool = Executors.newFixedThreadPool(Math.clamp(threads, 1, Baseline.values().length));
        try {
            List<Future<RunResult>> futures = new ArrayList<>();
            for (Baseline b : Baseline.values()) {
                futures.add(pool.submit(() -> new Simulation(config, jobs, b).run()));
            }
            Map<Baseline, RunResult> results = new EnumMap<>(Baseline.class);
            for (Future<RunResult> f : futures) {
                RunResult r = f.get();
                results.put(r.baseline(), r);
            }
            return new Comparison(name, config, results);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    public RunResult get(Baseline b) {
        return results.get(b);
    }

    /** Energy change against A in percent (negative = saved). */
    public double energyDeltaPercent(Baseline b) {
        return 100.0 * (get(b).energyKWh() / get(Baseline.A).energyKWh() - 1.0);
    }

    /** The common window: until the first run's last job finished (every run is busy until then). */
    public double windowSeconds() {
        return results.values().stream().mapToDouble(RunResult::makespanSeconds).min().orElse(0);
    }

    /** Energy change against A in percent over the common window: the power saved while doing the same work. */
    public double windowEnergyDeltaPercent(Baseline b) {
        double t = windowSeconds();
        return 100.0 * (get(b).energyKWhAt(t) / get(Baseline.A).energyKWhAt(t) - 1.0);
    }

    /** Mean completion time of performance-only jobs relative to A (1.0 = no slowdown). */
    public double performanceSlowdown(Baseline b) {
        return get(b).meanCompletion(PodClass.PERFORMANCE) / get(Baseline.A).meanCompletion(PodClass.PERFORMANCE);
    }

    /** Mean completion time of all jobs relative to A. */
    public double overallSlowdown(Baseline b) {
        return RunResult.mean(get(b).allCompletionTimes()) / RunResult.mean(get(Baseline.A).allCompletionTimes());
    }

    /** One line: energy saved vs A, violations, slowdown, for B and C. */
    public String headline() {
        StringBuilder sb = new StringBuilder();
        for (Baseline b : List.of(Baseline.B, Baseline.C)) {
            if (!sb.isEmpty()) {
                sb.append("; ");
            }
            sb.append(String.format(java.util.Locale.ROOT,
                    "%s (%s): energy %+.1f %% vs A over the common %.2f h window, %+.1f %% to finish all jobs, "
                            + "%.0f s violations, performance jobs %.2fx and all jobs %.2fx A's mean completion time",
                    b, b.title(), windowEnergyDeltaPercent(b), windowSeconds() / 3600, energyDeltaPercent(b),
                    get(b).violationSeconds(), performanceSlowdown(b), overallSlowdown(b)));
        }
        return sb.toString();
    }
}
