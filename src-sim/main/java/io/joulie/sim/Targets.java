package io.joulie.sim;

import io.joulie.planner.PodClass;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Placement and parking over several seeds, against the targets issue 22 set: each seed's workload run four ways (all
 * performance with the default least-allocated score; all performance with the efficient-load score; demand_sized_v1
 * with the efficient-load score; the same with parking), and per seed the three savings and the performance-only jobs'
 * completion times against all performance with the default score.
 *
 * @param scenario the scenario's name
 * @param seeds    per seed (in the order given), its four runs
 */
public record Targets(String scenario, Map<Long, Map<Run, Outcome>> seeds) {

    /** The runs made for each seed. */
    public enum Run {
        A_DEFAULT("A all performance, least-allocated", Baseline.A, "least-allocated", false),
        A_EFFICIENT("A all performance, efficient-load", Baseline.A, "efficient-load", false),
        D_EFFICIENT("D demand_sized_v1, efficient-load", Baseline.D, "efficient-load", false),
        D_PARKING("D demand_sized_v1, efficient-load, parking", Baseline.D, "efficient-load", true);

        private final String title;
        private final Baseline baseline;
        private final String score;
        private final boolean parking;

        Run(String title, Baseline baseline, String score, boolean parking) {
            this.title = title;
            this.baseline = baseline;
            this.score = score;
            this.parking = parking;
        }

        public String title() {
            return title;
        }

        /** The settings this run lays over the scenario's. */
        Map<String, String> overrides() {
            return Map.of("scheduler.score", score, "parking.enabled", String.valueOf(parking));
        }
    }

    /**
     * What one run measured: energy to finish, the performance-only jobs' completion mean and p95, violations, jobs,
     * and what parking did.
     */
    public record Outcome(double energyKWh, double performanceMeanSeconds, double performanceP95Seconds, double violationSeconds,
                          int jobsCompleted, int jobsTotal, RunResult.Parking parking) {

        static Outcome of(RunResult r) {
            double[] perf = r.completionTimes().getOrDefault(PodClass.PERFORMANCE, new double[0]);
            return new Outcome(r.energyKWh(), RunResult.mean(perf), RunResult.quantile(perf, 0.95), r.violationSeconds(),
                    r.jobsCompleted(), r.jobsTotal(), r.parking());
        }
    }

    /** A target of the issue: a measure per seed and the bound every seed must meet. */
    public enum Target {
        JOULIE_VS_DEFAULT("Joulie (D + efficient-load) vs A least-allocated, energy to finish", -5.0, true),
        JOULIE_OWN_PART("D vs A, both efficient-load (Joulie's own part)", -3.5, true),
        PERFORMANCE_MEAN("D + efficient-load, performance-only mean completion vs A least-allocated", 1.01, false),
        PERFORMANCE_P95("D + efficient-load, performance-only p95 completion vs A least-allocated", 1.05, false),
        VIOLATIONS("D + efficient-load, violation-seconds", 0, false),
        PARKING_VS_DEFAULT("stretch: D + efficient-load + parking vs A least-allocated", -9.0, true),
        PARKING_P95("stretch: parking's performance-only p95 completion vs A least-allocated", 1.05, false);

        private final String title;
        /** The goal: the measure at most this (percent, ratio, or seconds of violation). */
        private final double limit;
        private final boolean percent;

        Target(String title, double limit, boolean percent) {
            this.title = title;
            this.limit = limit;
            this.percent = percent;
        }

        public String title() {
            return title;
        }

        public String goal() {
            return this == VIOLATIONS ? String.format(Locale.ROOT, "%.0f s", limit)
                    : percent ? String.format(Locale.ROOT, "≤ %.1f %%", limit).replace('-', '−')
                    : String.format(Locale.ROOT, "≤ %.2fx", limit);
        }

        /** The measure on one seed's runs. */
        public double of(Map<Run, Outcome> r) {
            Outcome a = r.get(Run.A_DEFAULT);
            Outcome d = r.get(Run.D_EFFICIENT);
            Outcome p = r.get(Run.D_PARKING);
            return switch (this) {
                case JOULIE_VS_DEFAULT -> delta(d, a);
                case JOULIE_OWN_PART -> delta(d, r.get(Run.A_EFFICIENT));
                case PERFORMANCE_MEAN -> d.performanceMeanSeconds() / a.performanceMeanSeconds();
                case PERFORMANCE_P95 -> d.performanceP95Seconds() / a.performanceP95Seconds();
                case VIOLATIONS -> d.violationSeconds();
                case PARKING_VS_DEFAULT -> delta(p, a);
                case PARKING_P95 -> p.performanceP95Seconds() / a.performanceP95Seconds();
            };
        }

        /** Whether a measure meets the target; a ratio of no performance-only jobs (NaN) meets it vacuously. */
        public boolean met(double v) {
            return Double.isNaN(v) ? !percent && this != VIOLATIONS : v <= limit;
        }

        String format(double v) {
            if (Double.isNaN(v)) {
                return "–";
            }
            return this == VIOLATIONS ? String.format(Locale.ROOT, "%.0f s", v)
                    : percent ? String.format(Locale.ROOT, "%+.1f %%", v) : String.format(Locale.ROOT, "%.3fx", v);
        }
    }

    /** Energy to finish of {@code run} against {@code base}, in percent (negative = saved). */
    static double delta(Outcome run, Outcome base) {
        return 100.0 * (run.energyKWh() / base.energyKWh() - 1.0);
    }

    /**
     * Runs every seed's four runs of {@code scenario} (the scenario's settings with {@code overrides} and the seed laid
     * over them), up to {@code threads} runs at once.
     */
    public static Targets run(String scenario, Map<String, String> overrides, List<Long> seeds, int threads) {
        List<Callable<Outcome>> tasks = new ArrayList<>();
        for (long seed : seeds) {
            Map<String, String> seeded = new LinkedHashMap<>(overrides);
            seeded.put("workload.seed", String.valueOf(seed));
            List<JobSpec> jobs = Workload.of(Main.config(scenario, seeded).workload());
            for (Run run : Run.values()) {
                Map<String, String> o = new LinkedHashMap<>(seeded);
                o.putAll(run.overrides());
                SimConfig config = Main.config(scenario, o);
                tasks.add(() -> Outcome.of(Simulation.standalone(config, jobs, run.baseline).run()));
            }
        }
        List<Outcome> outcomes = Parallel.run(tasks, threads);
        Map<Long, Map<Run, Outcome>> bySeed = new LinkedHashMap<>();
        int i = 0;
        for (long seed : seeds) {
            Map<Run, Outcome> runs = new java.util.EnumMap<>(Run.class);
            for (Run run : Run.values()) {
                runs.put(run, outcomes.get(i++));
            }
            bySeed.put(seed, runs);
        }
        return new Targets(scenario, bySeed);
    }

    /** The least value of a target's measure over the seeds. */
    public double min(Target t) {
        return over(t).stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    /** The largest value of a target's measure over the seeds. */
    public double max(Target t) {
        return over(t).stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    /** Whether every seed meets the target. */
    public boolean met(Target t) {
        return over(t).stream().allMatch(t::met);
    }

    private List<Double> over(Target t) {
        return seeds.values().stream().map(t::of).filter(v -> !Double.isNaN(v)).toList();
    }

    /** {@code targets.csv}: one row per seed and run, with the run's measures against the same seed's baselines. */
    public String csv() {
        StringBuilder sb = new StringBuilder("scenario,seed,run,energy_kwh,vs_a_least_allocated_pct,vs_a_efficient_load_pct,"
                + "performance_mean_s,performance_p95_s,performance_mean_vs_a,performance_p95_vs_a,violation_s,jobs_completed,jobs_total,parks,wakes,mean_parked_nodes\n");
        seeds.forEach((seed, runs) -> {
            Outcome a = runs.get(Run.A_DEFAULT);
            Outcome ae = runs.get(Run.A_EFFICIENT);
            runs.forEach((run, o) -> sb.append(String.format(Locale.ROOT, "%s,%d,%s,%.4f,%.4f,%.4f,%.2f,%.2f,%.5f,%.5f,%.1f,%d,%d,%d,%d,%.2f%n",
                    scenario, seed, run.name(), o.energyKWh(), delta(o, a), delta(o, ae), o.performanceMeanSeconds(),
                    o.performanceP95Seconds(), o.performanceMeanSeconds() / a.performanceMeanSeconds(),
                    o.performanceP95Seconds() / a.performanceP95Seconds(), o.violationSeconds(), o.jobsCompleted(), o.jobsTotal(),
                    o.parking().parks(), o.parking().wakes(), o.parking().meanParked())
                    .replace("NaN", "")));
        });
        return sb.toString();
    }

    /** {@code targets.md}: per seed the runs, then per target its range over the seeds and whether every seed meets it. */
    public String markdown() {
        StringBuilder sb = new StringBuilder("# Placement and parking over seeds: " + scenario + "\n\n");
        sb.append("Each seed's workload run four ways: all performance with kube-scheduler's default score (least-allocated) and "
                + "with the efficient-load score Joulie ships (`examples/scheduler/kube-scheduler-config.yaml`), demand_sized_v1 with "
                + "that score, and the same with parking (`parking.*` defaults). Energy to finish the same jobs; completion times of "
                + "the performance-only jobs.\n\n");
        sb.append("| seed | run | energy to finish (kWh) | vs A least-allocated | vs A efficient-load | perf mean / p95 vs A "
                + "least-allocated | violations (s) | jobs | nodes parked (mean) / wakes |\n|---:|---|---:|---:|---:|---|---:|---:|---|\n");
        seeds.forEach((seed, runs) -> {
            Outcome a = runs.get(Run.A_DEFAULT);
            Outcome ae = runs.get(Run.A_EFFICIENT);
            runs.forEach((run, o) -> sb.append(String.format(Locale.ROOT, "| %d | %s | %.2f | %s | %s | %.3fx / %.3fx | %.0f | %d / %d | %s |%n",
                    seed, run.title(), o.energyKWh(), run == Run.A_DEFAULT ? "—" : String.format(Locale.ROOT, "%+.1f %%", delta(o, a)),
                    run == Run.A_EFFICIENT ? "—" : String.format(Locale.ROOT, "%+.1f %%", delta(o, ae)),
                    o.performanceMeanSeconds() / a.performanceMeanSeconds(), o.performanceP95Seconds() / a.performanceP95Seconds(),
                    o.violationSeconds(), o.jobsCompleted(), o.jobsTotal(), run.parking ? String.format(Locale.ROOT, "%.1f / %d",
                            o.parking().meanParked(), o.parking().wakes()) : "–").replace("NaNx", "–")));
        });
        sb.append("\n| target | goal | min over seeds | max over seeds | every seed meets it |\n|---|---|---:|---:|---|\n");
        for (Target t : Target.values()) {
            sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s |%n", t.title(), t.goal(), t.format(min(t)),
                    t.format(max(t)), met(t) ? "yes" : "**no**"));
        }
        sb.append("\nSeeds ").append(String.join(", ", seeds.keySet().stream().map(String::valueOf).toList()))
                .append(". Parking is modelled in the twin only (decision 211). A ratio of – means the scenario has no "
                        + "performance-only jobs.\n");
        return sb.toString();
    }

    /** One line per target for the console: its range over the seeds and whether every seed meets it. */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        for (Target t : Target.values()) {
            out.add(String.format(Locale.ROOT, "%-92s %s … %s  (goal %s: %s)", t.title(), t.format(min(t)), t.format(max(t)), t.goal(),
                    met(t) ? "met" : "NOT met"));
        }
        return out;
    }

    /** Parses {@code --seeds}: a list ({@code 1,2,3}) or a range ({@code 1-5}). */
    static List<Long> parseSeeds(String value) {
        List<Long> out = new ArrayList<>();
        for (String part : value.split(",")) {
            String p = part.trim();
            int dash = p.indexOf('-', 1);
            try {
                if (dash > 0) {
                    long from = Long.parseLong(p.substring(0, dash).trim());
                    long to = Long.parseLong(p.substring(dash + 1).trim());
                    SimConfig.require(from <= to && to - from < 1000, "--seeds range '" + p + "' must run upwards, at most 1000 seeds");
                    for (long s = from; s <= to; s++) {
                        out.add(s);
                    }
                } else {
                    out.add(Long.parseLong(p));
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--seeds takes whole numbers, a list (1,2,3) or a range (1-5); got '" + value + "'");
            }
        }
        SimConfig.require(!out.isEmpty() && out.stream().distinct().count() == out.size(), "--seeds must name distinct seeds, got '" + value + "'");
        return out;
    }
}
