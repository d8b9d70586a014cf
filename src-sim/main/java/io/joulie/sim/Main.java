package io.joulie.sim;

import io.joulie.planner.Planner;
import io.joulie.planner.PodClass;
import io.joulie.planner.Transition;
import io.joulie.sim.cluster.ClusterControlPlane;
import io.joulie.sim.optimum.EnergyBound;
import io.joulie.sim.optimum.TimeIndexedBound;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The twin's command line (docs/simulation.md).
 *
 * <pre>
 * java -jar src-sim/target/joulie-sim.jar bench [--scenario published|day|day-mixed|hetero|demo|all] [--out DIR] [--threads N] [--seeds 1-5] [key=value ...]
 * java -jar src-sim/target/joulie-sim.jar bench --runs A,D [--scenario NAME|all] [key=value ...]
 * java -jar src-sim/target/joulie-sim.jar targets [--scenario NAME|all] [--seeds 1-5] [--out DIR] [--threads N] [key=value ...]
 * java -jar src-sim/target/joulie-sim.jar watch [--baseline B|C|D] [--scenario NAME] [key=value ...]
 * java -jar src-sim/target/joulie-sim.jar demo [--baseline B|C|D] [--speed N] [--scenario NAME] [--repo DIR] [--out DIR] [--kubeconfig FILE] [key=value ...]
 * java -jar src-sim/target/joulie-sim.jar params
 * </pre>
 */
public final class Main {
    /** Named parameter sets; command-line {@code key=value} pairs apply on top. */
    static final Map<String, Map<String, String>> SCENARIOS = new LinkedHashMap<>();
    /**
     * The calibrated workload: jobs of 1 to 8 cores and 2,400 to 14,400 core-seconds of work, half of them memory-bound
     * (sensitivity 0.1 to 0.6; half of those declare eco), the others compute-bound (0.85 to 1.0); 30 % performance-only;
     * generated for 24 h with a daily cycle.
     */
    static final Map<String, String> CALIBRATED_WORKLOAD = Map.ofEntries(Map.entry("workload.jobs", "0"),
            Map.entry("workload.horizonSeconds", "86400"), Map.entry("workload.diurnalAmplitude", "0.5"),
            Map.entry("workload.workMin", "2400"), Map.entry("workload.workMax", "14400"),
            Map.entry("workload.memoryBoundShare", "0.5"), Map.entry("workload.memoryBoundSensitivityMin", "0.1"),
            Map.entry("workload.memoryBoundSensitivityMax", "0.6"), Map.entry("workload.sensitivityMin", "0.85"),
            Map.entry("workload.sensitivityMax", "1.0"), Map.entry("workload.declaredShare", "0.5"));

    static {
        // Joulie's first published experiment: the defaults (5 nodes, 300 jobs, 500 / 260 W, 0.75, 0.70/2/5/15) on the
        // seed-era node model. Kept as it was, so that the first figures stay reproducible.
        SCENARIOS.put("published", Map.of());
        // The demo: 12 nodes on the embedded API server, about 2 h simulated (about 2.5 min at speed 60).
        SCENARIOS.put("demo", Map.of("cluster.nodes", "12", "workload.jobs", "720", "workload.meanInterarrivalSeconds", "2",
                "planner.queueHpMin", "5", "planner.queueHpMax", "12"));
        // The calibrated 1,000-node day (docs/simulation.md, "Calibration"): Dell PowerEdge R640 nodes (SPECpower curve),
        // half the jobs memory-bound and half of those declared eco (joulie.io/workload-class), arrivals for 24 h at
        // about 60 % of the cores requested on average (±50 % over the day), the eco cap at the knee of the node for
        // memory-bound work (in the packages' watts, as the agent applies it: 25 W per package, the lowest limit modelled); queue-aware bounds scaled as before (2 / 5 of 5 nodes; 15 pods per 16 cores).
        Map<String, String> day = new java.util.HashMap<>(CALIBRATED_WORKLOAD);
        day.putAll(Map.of("cluster.nodes", "1000", "cluster.types", "dell-r640:1", "workload.meanInterarrivalSeconds", "0.25",
                "planner.performanceCapWatts", "1000", "planner.ecoCapWatts", "50", "planner.queueHpMin", "400",
                "planner.queueHpMax", "1000", "planner.queuePerfPerHpNode", "52", "optimizer.evaluations", "120"));
        SCENARIOS.put("day", Map.copyOf(day));
        // The same day on a mix of two server types: 70 % R640, 30 % R940, the eco cap of each type at its knee.
        Map<String, String> mixed = new java.util.HashMap<>(day);
        mixed.putAll(Map.of("cluster.types", "dell-r640:0.7,dell-r940:0.3", "workload.meanInterarrivalSeconds", "0.1923",
                "planner.ecoCapWattsByType", "dell-r640=50,dell-r940=100"));
        SCENARIOS.put("day-mixed", Map.copyOf(mixed));
        // A heterogeneous CPU/GPU cluster in the shape of the Go Joulie's heterogeneous experiments: the two server types
        // and GPU servers (8 A100 or 8 H100 boards each), the calibrated day's CPU work at about 60 % of the CPU servers'
        // cores with a share of GPU jobs that keeps about 60 % of the boards busy; the operator's GPU caps (100 % and
        // 60 % of each board's highest limit); queue-aware bounds scaled to 100 nodes as the day's to 1,000.
        Map<String, String> hetero = new java.util.HashMap<>(day);
        hetero.putAll(Map.of("cluster.nodes", "100", "cluster.types", "dell-r640:0.5,dell-r940:0.2,gpu-a100x8:0.15,gpu-h100x8:0.15",
                "workload.meanInterarrivalSeconds", "2.7", "workload.gpuShare", "0.025",
                "planner.ecoCapWattsByType", "dell-r640=50,dell-r940=100,gpu-a100x8=50,gpu-h100x8=50",
                "planner.queueHpMin", "40", "planner.queueHpMax", "100"));
        SCENARIOS.put("hetero", Map.copyOf(hetero));
    }

    private Main() {
    }

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        try {
            System.exit(run(args));
        } catch (IllegalArgumentException e) {
            System.err.println("joulie-sim: " + e.getMessage());
            System.exit(2);
        }
    }

    static int run(String[] args) {
        if (args.length == 0) {
            System.err.println(usage());
            return 2;
        }
        Map<String, String> options = new LinkedHashMap<>();
        Map<String, String> overrides = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            if (a.startsWith("--")) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option " + a + " needs a value");
                }
                options.put(a.substring(2), args[++i]);
            } else if (a.contains("=")) {
                overrides.put(a.substring(0, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
            } else {
                throw new IllegalArgumentException("unexpected argument '" + a + "'\n" + usage());
            }
        }
        return switch (args[0]) {
            case "bench" -> bench(options, overrides);
            case "bounds" -> bounds(options, overrides);
            case "targets" -> targets(options, overrides);
            case "watch" -> watch(options, overrides);
            case "demo" -> demo(options, overrides);
            case "params" -> {
                System.out.print(paramsTable());
                yield 0;
            }
            default -> throw new IllegalArgumentException("unknown command '" + args[0] + "'\n" + usage());
        };
    }

    /** {@code --scenario}'s names: {@code all} is every scenario but the demo's. */
    static List<String> scenarios(String scenario) {
        return scenario.equals("all") ? List.of("published", "day", "day-mixed", "hetero") : List.of(scenario);
    }

    /** The seeds whose placement and parking runs {@code bench} reports against issue 22's targets. */
    static final String DEFAULT_SEEDS = "1-5";

    private static int bench(Map<String, String> options, Map<String, String> overrides) {
        String scenario = options.getOrDefault("scenario", "published");
        Path out = Path.of(options.getOrDefault("out", "target/sim-results"));
        int threads = positive("threads", options.getOrDefault("threads", String.valueOf(Runtime.getRuntime().availableProcessors())));
        List<String> names = scenarios(scenario);
        if (options.containsKey("runs")) {
            return runs(names, options.get("runs"), overrides);
        }
        List<Long> seeds = Targets.parseSeeds(options.getOrDefault("seeds", DEFAULT_SEEDS));
        for (String name : names) {
            SimConfig config = config(name, overrides);
            long start = System.nanoTime();
            Comparison c = Comparison.run(name, config, threads);
            Path report = Report.write(c, out.resolve(name));
            System.out.printf(Locale.ROOT, "%s: %d nodes, %d jobs, %.1f s wall%n", name, config.nodes(),
                    c.get(Baseline.A).jobsTotal(), (System.nanoTime() - start) / 1e9);
            for (RunResult r : c.results().values()) {
                System.out.printf(Locale.ROOT, "  %s %-24s %10.2f kWh to finish %+6.1f %%  gap to bound %4.1f pp, to optimum %4.1f pp  "
                                + "%d/%d jobs  makespan %.2f h  violations %.0f s%n",
                        r.baseline(), r.baseline().title(), r.energyKWh(), c.energyDeltaPercent(r.baseline()),
                        c.gapToBound(r.baseline()), c.gapToOptimum(r.baseline()),
                        r.jobsCompleted(), r.jobsTotal(), r.makespanSeconds() / 3600, r.violationSeconds());
            }
            System.out.printf(Locale.ROOT, "  θ bound                    %10.2f kWh to finish %+6.1f %%%n", c.bound().kWh(), c.boundDeltaPercent());
            System.out.printf(Locale.ROOT, "  time-indexed bound         %10.2f kWh to finish %+6.1f %%%s%n", c.timeBound().kWh(),
                    c.timeBoundDeltaPercent(), c.timeBound().solved()
                            ? String.format(Locale.ROOT, " (%.0f-minute slots)", c.timeBound().slotSeconds() / 60)
                            : " (LP not solved within the time limit at any slot length: the θ bound)");
            System.out.printf(Locale.ROOT, "  optimum bracketed: [%.2f, %.2f] kWh (best lower bound, best feasible schedule)%n",
                    Math.max(c.bound().kWh(), c.timeBound().kWh()), c.bestFeasibleKWh());
            System.out.println("  H: " + c.actionSpace(Baseline.H));
            System.out.println("  U: " + c.actionSpace(Baseline.U));
            System.out.println("  θ and time-indexed bounds: " + Comparison.BOUND_ACTION_SPACE);
            System.out.println("  " + c.headline());
            System.out.println("  report: " + report.toAbsolutePath());
            targets(name, overrides, seeds, threads, out);
        }
        return 0;
    }

    /** {@code targets}: only the placement and parking runs over seeds of {@code bench}, and their files. */
    private static int targets(Map<String, String> options, Map<String, String> overrides) {
        String scenario = options.getOrDefault("scenario", "day");
        Path out = Path.of(options.getOrDefault("out", "target/sim-results"));
        int threads = positive("threads", options.getOrDefault("threads", String.valueOf(Runtime.getRuntime().availableProcessors())));
        List<Long> seeds = Targets.parseSeeds(options.getOrDefault("seeds", DEFAULT_SEEDS));
        for (String name : scenarios(scenario)) {
            System.out.println(name + ":");
            targets(name, overrides, seeds, threads, out);
        }
        return 0;
    }

    private static void targets(String name, Map<String, String> overrides, List<Long> seeds, int threads, Path out) {
        long start = System.nanoTime();
        Targets t = Targets.run(name, overrides, seeds, threads);
        Path targets = Report.write(t, out.resolve(name));
        System.out.printf(Locale.ROOT, "  placement and parking, seeds %s (%.1f s wall):%n",
                String.join(",", seeds.stream().map(String::valueOf).toList()), (System.nanoTime() - start) / 1e9);
        t.lines().forEach(l -> System.out.println("    " + l));
        System.out.println("  targets: " + targets.toAbsolutePath());
    }

    /**
     * {@code bench --runs A,D}: only the named runs (A and the policies), one after the other, no bound, no search and no
     * report: their energy to finish and the performance-only jobs' completion times, for comparing parameters.
     */
    private static int runs(List<String> names, String runs, Map<String, String> overrides) {
        List<Baseline> baselines = java.util.Arrays.stream(runs.split(",")).map(String::trim).map(v -> v.equalsIgnoreCase("A")
                ? Baseline.A : policy(v)).toList();
        for (String name : names) {
            SimConfig config = config(name, overrides);
            List<JobSpec> jobs = Workload.of(config.workload());
            System.out.printf(Locale.ROOT, "%s: %d nodes, %d jobs, scheduler.score=%s%n", name, config.nodes(), jobs.size(),
                    config.score().value());
            for (Baseline b : baselines) {
                RunResult r = Simulation.standalone(config, jobs, b).run();
                double[] perf = r.completionTimes().getOrDefault(PodClass.PERFORMANCE, new double[0]);
                System.out.printf(Locale.ROOT, "  %s %-18s %10.2f kWh to finish  %d/%d jobs  makespan %.2f h  performance-only "
                                + "completion mean %.1f s p95 %.1f s  violations %.0f s  %.1f s wall%n",
                        b, b.title(), r.energyKWh(), r.jobsCompleted(), r.jobsTotal(), r.makespanSeconds() / 3600,
                        RunResult.mean(perf), RunResult.quantile(perf, 0.95), r.violationSeconds(), r.wallMillis() / 1e3);
            }
        }
        return 0;
    }

    /** The θ bound and the time-indexed bound alone (no run of the twin): seconds, not minutes. */
    private static int bounds(Map<String, String> options, Map<String, String> overrides) {
        String scenario = options.getOrDefault("scenario", "published");
        List<String> names = scenarios(scenario);
        for (String name : names) {
            SimConfig config = config(name, overrides);
            List<JobSpec> jobs = Workload.of(config.workload());
            long start = System.nanoTime();
            EnergyBound theta = EnergyBound.of(config, jobs);
            double thetaSeconds = (System.nanoTime() - start) / 1e9;
            start = System.nanoTime();
            TimeIndexedBound.Options d = TimeIndexedBound.Options.DEFAULT;
            TimeIndexedBound lp = TimeIndexedBound.of(config, jobs, new TimeIndexedBound.Options(
                    Double.parseDouble(options.getOrDefault("slot", String.valueOf(d.slotSeconds()))),
                    positive("steps", options.getOrDefault("steps", String.valueOf(d.steps()))),
                    Double.parseDouble(options.getOrDefault("slowdown", String.valueOf(d.performanceSlowdown()))),
                    Boolean.parseBoolean(options.getOrDefault("round-cores", String.valueOf(d.roundCores())))));
            System.out.printf(Locale.ROOT, "%s: %d nodes, %d jobs%n  θ bound            %10.2f kWh (GPU %.2f), T_lb %.2f h, %.1f s%n"
                            + "  time-indexed bound %10.2f kWh (GPU %.2f), %d slots, %d variables, %d constraints, %.1f s%s%n",
                    name, config.nodes(), jobs.size(), theta.kWh(), theta.gpuKWh(), theta.makespanLowerBound() / 3600, thetaSeconds,
                    lp.kWh(), lp.gpuKWh(), lp.slots(), lp.variables(), lp.constraints(), (System.nanoTime() - start) / 1e9,
                    lp.solved() ? "" : " (NOT SOLVED within the time limit: the θ bound's value)");
        }
        return 0;
    }

    /**
     * Cluster mode: the real operator and agent on the embedded API server (or the one of {@code --kubeconfig}) run
     * {@code --baseline} (C by default) on the scenario's workload, time-compressed; every other run, the bound and the
     * optimum are computed standalone on the same jobs for the comparison.
     */
    private static int demo(Map<String, String> options, Map<String, String> overrides) {
        String scenario = options.getOrDefault("scenario", "demo");
        SimConfig config = config(scenario, overrides);
        Baseline live = policy(options.getOrDefault("baseline", "C"));
        double speed = Double.parseDouble(options.getOrDefault("speed", "60"));
        Path out = Path.of(options.getOrDefault("out", "target/sim-results")).resolve(scenario);
        Path repo = Path.of(options.getOrDefault("repo", "."));
        List<JobSpec> jobs = Workload.of(config.workload());
        System.out.printf(Locale.ROOT, "Joulie digital twin, cluster mode: %d nodes, %d jobs, %s by the real operator and agent "
                + "(pool mode) on %s, %.0fx time compression%n", config.nodes(), jobs.size(),
                live.title(), options.containsKey("kubeconfig") ? "the API server of " + options.get("kubeconfig")
                        : "an embedded API server", speed);
        Comparison standalone = Comparison.run(scenario, config, 2);
        RunResult cluster;
        try (ClusterControlPlane cm = new ClusterControlPlane(config, new ClusterControlPlane.Options(repo, live, speed, out,
                System.out, options.containsKey("kubeconfig") ? Path.of(options.get("kubeconfig")) : null))) {
            Simulation sim = new Simulation(config, jobs, live, cm);
            System.out.println("starting the operator and the agent (logs in " + out.toAbsolutePath() + ") ...");
            cm.start(java.time.Duration.ofSeconds(180));
            System.out.println("every node planned and capped; simulated clock started");
            cluster = sim.run();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Map<Baseline, RunResult> results = new java.util.EnumMap<>(standalone.results());
        results.put(live, cluster);
        Comparison c = new Comparison(scenario + " (" + live + " in cluster mode: the real operator and agent; "
                + "the others standalone)", config, results, standalone.bound(), standalone.optimum(), standalone.timeBound(),
                standalone.constructive());
        Path report = Report.write(c, out);
        System.out.printf(Locale.ROOT, "%s in cluster mode: %.2f kWh, %d/%d jobs, makespan %.2f h, violations %.0f s "
                        + "(standalone it was %.2f kWh, makespan %.2f h)%n", live, cluster.energyKWh(), cluster.jobsCompleted(),
                cluster.jobsTotal(), cluster.makespanSeconds() / 3600, cluster.violationSeconds(),
                standalone.get(live).energyKWh(), standalone.get(live).makespanSeconds() / 3600);
        System.out.println("report: " + report.toAbsolutePath());
        System.out.println(c.headline());
        return cluster.violationSeconds() == 0 && cluster.jobsCompleted() == cluster.jobsTotal() ? 0 : 1;
    }

    /** A baseline that runs a policy (B, C, ...). */
    private static Baseline policy(String value) {
        String name = value.toUpperCase(Locale.ROOT);
        return Baseline.policies().stream().filter(v -> v.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("--baseline must be one of "
                        + String.join(", ", Baseline.policies().stream().map(Enum::name).toList()) + ", got '" + value + "'"));
    }

    /** One baseline, printing each tick's node moves and why. */
    private static int watch(Map<String, String> options, Map<String, String> overrides) {
        Baseline b = policy(options.getOrDefault("baseline", "C"));
        SimConfig config = config(options.getOrDefault("scenario", "published"), overrides);
        RunResult r = new Simulation(config, Workload.of(config.workload()), b, new InProcessPlanner(
                new Planner(config.planner().withPolicy(b.policy())), config.tickSeconds(), (t, plan, moved) -> {
            if (!moved.isEmpty()) {
                System.out.printf(Locale.ROOT, "t=%7.0fs %s%n", t, plan.plan().summary());
                for (Transition tr : moved) {
                    System.out.printf(Locale.ROOT, "    %s %s -> %s: %s%n", tr.node(), tr.from(), tr.to(), tr.reason());
                }
            }
        })).run();
        System.out.printf(Locale.ROOT, "%s %s: %.2f kWh, %d/%d jobs, makespan %.2f h, violations %.0f s%n", b, b.title(),
                r.energyKWh(), r.jobsCompleted(), r.jobsTotal(), r.makespanSeconds() / 3600, r.violationSeconds());
        return 0;
    }

    private static int positive(String option, String value) {
        try {
            int v = Integer.parseInt(value.trim());
            if (v >= 1) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--" + option + " must be a whole number ≥ 1, got '" + value + "'");
    }

    static SimConfig config(String scenario, Map<String, String> overrides) {
        Map<String, String> preset = SCENARIOS.get(scenario);
        if (preset == null) {
            throw new IllegalArgumentException("unknown scenario '" + scenario + "'; known: " + String.join(", ", SCENARIOS.keySet()) + ", all");
        }
        Map<String, String> merged = new LinkedHashMap<>(preset);
        merged.putAll(overrides);
        return SimConfig.of(merged);
    }

    static String paramsTable() {
        StringBuilder sb = new StringBuilder("| parameter | default | meaning |\n|---|---|---|\n");
        Params.table().values().forEach(p -> sb.append("| `").append(p.key()).append("` | ")
                .append(p.defaultValue().isEmpty() ? "(empty)" : "`" + p.defaultValue() + "`").append(" | ")
                .append(p.description()).append(" |\n"));
        return sb.toString();
    }

    private static String usage() {
        return """
                usage: java -jar joulie-sim.jar <command> [options] [key=value ...]
                  bench  [--scenario published|day|day-mixed|hetero|demo|all]       runs A, B, C, D, the lower bounds, the hindsight
                         [--out DIR] [--threads N]                                  optimum and the clairvoyant schedule; CSV, Markdown, PNG
                         [--seeds 1-5]                                              then A and D with the efficient-load score and parking
                                                                                    on these seeds, against issue 22's targets (targets.md)
                         [--runs A,D]                                               only these runs, one after the other: no bound, search, report
                  targets [--scenario day|NAME|all] [--seeds 1-5] [--out DIR]       only bench's placement and parking runs over seeds
                  bounds [--scenario NAME|all] [--slot 900] [--steps 5]             the θ and the time-indexed lower bounds only
                         [--slowdown Infinity] [--round-cores true]                 (the LP's slot, grouping, performance deadline)
                  watch  [--baseline B|C|D] [--scenario NAME]                       one run, printing each tick's node moves
                  demo   [--baseline B|C|D] [--speed 60] [--repo .] [--out DIR]     cluster mode: the real operator and agent on an
                         [--scenario demo] [--kubeconfig FILE]                      embedded API server (or the one of FILE), time-compressed
                  params                                                            every parameter with its default""";
    }
}
