package io.joulie.sim.optimum;

import io.joulie.api.v1alpha1.NodePowerProfileSpec.CpuPower;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.planner.Planner;
import io.joulie.planner.PodClass;
import io.joulie.sim.Baseline;
import io.joulie.sim.InProcessPlanner;
import io.joulie.sim.JobSpec;
import io.joulie.sim.NodeType;
import io.joulie.sim.Parallel;
import io.joulie.sim.RunResult;
import io.joulie.sim.SimConfig;
import io.joulie.sim.Simulation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;

/**
 * The best schedule found with hindsight (baseline H; docs/simulation.md, "Bracketing the optimum"; decision 190): a
 * {@link Schedule} chosen knowing every job in advance and run through the operator's own eco selection and guard (the
 * same caps, labels and contract: a drain is held until the last performance-only job left). Energy to finish is
 * evaluated by running the twin itself; a schedule that leaves a job unfinished, runs a performance-only job under the eco
 * cap, or makes performance-only jobs slower on average than the service level allows is rejected.
 *
 * <p>Action space: per planner tick, the number of performance nodes of each node type (so which nodes go eco, by type;
 * inside a type the operator's eco selection picks), and each type's eco CPU cap among the caps the lower bounds allow
 * ({@link EnergyBound#ecoCaps}), so that bounds and search share one action set. Not in it: the scheduler's score,
 * parking, per-job frequency, the GPU boards' eco cap.
 *
 * <p>Search, deterministic and bounded by {@link Options#evaluations} runs of the twin:
 * <ol>
 * <li>seeds: those given (the policies' own counts, the clairvoyant schedules), all-performance and constant counts; the
 * best acceptable one starts the search. The result is never worse than an acceptable seed;</li>
 * <li>on several node types, when the best seed is a per-type one, the best total seed is first refined as in 5. with
 * half of the runs left (two runs per block instead of two per type, so it gets deeper), and the better of the two
 * goes on;</li>
 * <li>a total count is split over the node types in proportion to their nodes (one run), kept if no worse;</li>
 * <li>each type's eco cap: every other cap of the menu, one run each, the best change kept;</li>
 * <li>coarse-to-fine refinement: blocks of 2^k ticks from about half the run down to one tick; each size may spend half
 * of the runs left beyond one batch (two runs per row) for each shorter size (the last size all that is left), so every
 * size down to one tick is tried when the budget has a batch per size; within a size the
 * blocks where some count changes come first (that is where a shorter block can gain), then the rest in time order;
 * each block's count of each type is raised and lowered (one batch of runs), by steps from a quarter of the type's
 * nodes down to one, and the change that saves the most energy is kept.</li>
 * </ol>
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
     * A schedule to start from.
     *
     * @param name     what it is ("demand_sized_v1", "all performance", ...)
     * @param schedule the schedule
     * @param run      its run through {@link #evaluate}, when already made (null: the search runs it)
     */
    public record Seed(String name, Schedule schedule, RunResult run) {
    }

    /**
     * @param run         the best run found (baseline H)
     * @param schedule    its schedule
     * @param evaluations runs of the twin spent by the search (seeds given with their run not counted)
     * @param seed        the seed the result descends from (on several types the best total seed when its refinement won)
     * @param finestBlock the shortest block, in ticks, the refinement tried (1: single ticks reached)
     * @param seeds       every seed's energy to finish (kWh), NaN for a seed that is not acceptable, by name
     */
    public record Result(RunResult run, Schedule schedule, int evaluations, String seed, int finestBlock, Map<String, Double> seeds) {
        public Result {
            seeds = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(seeds));
        }
    }

    private final SimConfig config;
    private final List<JobSpec> jobs;
    private final Options options;
    private final List<String> types;
    private final int[] nodesOfType;
    private int evaluations;

    private HindsightOptimizer(SimConfig config, List<JobSpec> jobs, Options options) {
        this.config = config;
        this.jobs = jobs;
        this.options = options;
        this.types = config.nodeTypes().stream().map(NodeType::name).toList();
        this.nodesOfType = new int[types.size()];
        config.typeOfEachNode().forEach(t -> nodesOfType[t]++);
    }

    /** Starts from these per-tick total counts (e.g. the policies' own), by name, and the built-in seeds. */
    public static Result optimize(SimConfig config, List<JobSpec> jobs, Map<String, int[]> seeds, Options options) {
        List<Seed> list = new ArrayList<>();
        seeds.forEach((name, counts) -> list.add(new Seed(name, Schedule.total(counts), null)));
        return optimize(config, jobs, list, options);
    }

    /** Starts from these seeds and the built-in ones (all performance, constant counts). */
    public static Result optimize(SimConfig config, List<JobSpec> jobs, List<Seed> seeds, Options options) {
        return new HindsightOptimizer(config, jobs, options).search(seeds);
    }

    /** Runs the twin with this total schedule (the operator's eco selection picks the nodes). */
    public static RunResult evaluate(SimConfig config, List<JobSpec> jobs, int[] schedule) {
        return evaluate(config, jobs, Schedule.total(schedule));
    }

    /** Runs the twin with this schedule. */
    public static RunResult evaluate(SimConfig config, List<JobSpec> jobs, Schedule schedule) {
        List<String> names = config.nodeTypes().stream().map(NodeType::name).toList();
        SimConfig.require(!schedule.byType() || schedule.counts().length == names.size(),
                "a per-type schedule needs one row per node type (" + names + "), got " + schedule.counts().length);
        Planner planner = new Planner(schedule.settings(config.planner()), new ScheduledCount(schedule, names, config.tickSeconds()));
        return new Simulation(config, jobs, Baseline.H, new InProcessPlanner(planner, config.tickSeconds(), null)).run();
    }

    /** Runs these schedules on up to {@code threads} threads; results in order. */
    public static List<RunResult> evaluateAll(SimConfig config, List<JobSpec> jobs, List<Schedule> schedules, int threads) {
        return Parallel.run(schedules.stream().map(s -> (Callable<RunResult>) () -> evaluate(config, jobs, s)).toList(), threads);
    }

    /** Finishes every job, no violation, performance-only jobs' mean completion within {@code maxPerformanceCompletion}. */
    public static boolean acceptable(RunResult r, double maxPerformanceCompletion) {
        double perf = r.meanCompletion(PodClass.PERFORMANCE);
        return r.finished() && r.violationSeconds() == 0 && !(perf > maxPerformanceCompletion);
    }

    private boolean acceptable(RunResult r) {
        return acceptable(r, options.maxPerformanceCompletion());
    }

    private Result search(List<Seed> given) {
        int n = config.nodes();
        Map<String, Seed> seeds = new LinkedHashMap<>();
        given.forEach(s -> seeds.putIfAbsent(s.name(), s));
        seeds.putIfAbsent("all performance", new Seed("all performance", Schedule.total(new int[] {n}), null));
        for (int k = 0; k < 4; k++) {
            int hp = (int) Math.round(n * k / 4.0);
            seeds.putIfAbsent("constant " + hp, new Seed("constant " + hp, Schedule.total(new int[] {hp}), null));
        }
        List<Seed> toRun = seeds.values().stream().filter(s -> s.run() == null).toList();
        List<RunResult> ran = run(toRun.stream().map(Seed::schedule).toList());
        for (int i = 0; i < toRun.size(); i++) {
            Seed s = toRun.get(i);
            seeds.put(s.name(), new Seed(s.name(), s.schedule(), ran.get(i)));
        }
        Map<String, Double> seedEnergy = new LinkedHashMap<>();
        Seed start = null;
        for (Seed s : seeds.values()) {
            boolean ok = acceptable(s.run());
            seedEnergy.put(s.name(), ok ? s.run().energyKWh() : Double.NaN);
            if (ok && (start == null || s.run().energyKWh() < start.run().energyKWh())) {
                start = s;
            }
        }
        SimConfig.require(start != null, "no seed schedule finishes every job without a violation within the service level");
        RunResult best = start.run();
        int ticks = Math.max((int) Math.ceil(best.makespanSeconds() / config.tickSeconds()) + 1,
                Arrays.stream(start.schedule().counts()).mapToInt(r -> r.length).max().orElse(1));
        Schedule schedule = stretch(start.schedule(), ticks);
        String from = start.name();
        int finest = 0;

        // on several types, when the best seed is per type (a clairvoyant one), the best total seed is refined first with
        // half the budget: two runs per block rather than two per type, so it goes deeper; the better of the two goes on
        Seed totalStart = null;
        for (Seed s : seeds.values()) {
            if (!s.schedule().byType() && acceptable(s.run()) && (totalStart == null || s.run().energyKWh() < totalStart.run().energyKWh())) {
                totalStart = s;
            }
        }
        if (types.size() > 1 && schedule.byType() && totalStart != null) {
            Refined total = refine(stretch(totalStart.schedule(), ticks), totalStart.run(), ticks,
                    evaluations + (options.evaluations() - evaluations) / 2);
            finest = total.finest();
            if (total.run().energyKWh() < best.energyKWh()) {
                best = total.run();
                schedule = total.schedule();
                from = totalStart.name() + " (the best total seed, refined first)";
            }
        }

        // a total count split over the types: the same counts, now free to differ by type
        if (!schedule.byType() && types.size() > 1 && evaluations < options.evaluations()) {
            Schedule split = split(schedule);
            RunResult r = run(List.of(split)).getFirst();
            if (acceptable(r) && r.energyKWh() <= best.energyKWh()) {
                best = r;
                schedule = split;
            }
        }

        // each type's eco cap among the caps the bounds allow
        List<Double> menu = capMenu();
        if (!menu.isEmpty() && evaluations < options.evaluations()) {
            List<Schedule> candidates = new ArrayList<>();
            for (int k = 0; k < types.size(); k++) {
                if (nodesOfType[k] == 0) {
                    continue;
                }
                double current = effectiveEcoCap(schedule, k);
                for (double w : menu) {
                    if (Math.abs(w - current) > 1e-9) {
                        Map<String, Double> caps = new TreeMap<>(schedule.ecoCapWattsByType());
                        caps.put(types.get(k), w);
                        candidates.add(schedule.withEcoCaps(caps));
                    }
                }
            }
            candidates = candidates.subList(0, Math.min(candidates.size(), options.evaluations() - evaluations));
            List<RunResult> tried = run(candidates);
            for (int i = 0; i < tried.size(); i++) {
                if (acceptable(tried.get(i)) && tried.get(i).energyKWh() < best.energyKWh() - 1e-12) {
                    best = tried.get(i);
                    schedule = candidates.get(i);
                }
            }
        }

        Refined refined = refine(schedule, best, ticks, options.evaluations());
        finest = finest == 0 ? refined.finest() : refined.finest() == 0 ? finest : Math.min(finest, refined.finest());
        return new Result(refined.run(), refined.schedule(), evaluations, from, finest, seedEnergy);
    }

    private record Refined(Schedule schedule, RunResult run, int finest) {
    }

    /**
     * Coarse-to-fine refinement of the counts from {@code schedule} (whose run is {@code best}) until {@code until} runs
     * have been spent in all.
     */
    private Refined refine(Schedule schedule, RunResult best, int ticks, int until) {
        int n = config.nodes();
        int finest = 0;
        List<Integer> blocks = new ArrayList<>();
        for (int block = Integer.highestOneBit(Math.max(1, ticks / 2)); block >= 1; block /= 2) {
            blocks.add(block);
        }
        for (int level = 0; level < blocks.size() && evaluations < until; level++) {
            int block = blocks.get(level);
            // half of what is left beyond one batch (two runs per row) for each shorter block size: long blocks, where a
            // change moves the most energy, get the most runs, and every size down to one tick still gets a batch
            int rows = schedule.counts().length;
            int batch = 2 * rows;
            int remaining = until - evaluations;
            int levelEnd = evaluations + Math.max(batch, (remaining - batch * (blocks.size() - level - 1)) / (level == blocks.size() - 1 ? 1 : 2));
            boolean tried = false;
            int widest = rows == 1 ? n : Arrays.stream(nodesOfType).max().orElse(n);
            for (int step : steps(widest)) {
                boolean improved = true;
                while (improved && evaluations + batch <= levelEnd && evaluations < until) {
                    improved = false;
                    for (int from : priority(schedule, block, ticks)) {
                        if (evaluations + batch > levelEnd || evaluations >= until) {
                            break;
                        }
                        // every type's count of this block one step up and one step down; the best saving kept
                        List<Schedule> candidates = new ArrayList<>();
                        for (int row = 0; row < rows; row++) {
                            int rowMax = rows == 1 ? n : nodesOfType[row];
                            int rowStep = Math.max(1, (int) Math.round((double) step * rowMax / widest));
                            for (int sign : new int[] {-1, 1}) {
                                Schedule c = shifted(schedule, row, from, Math.min(ticks, from + block), sign * rowStep, rowMax);
                                if (c != null) {
                                    candidates.add(c);
                                }
                            }
                        }
                        candidates = candidates.subList(0, Math.min(candidates.size(), until - evaluations));
                        List<RunResult> results = run(candidates);
                        tried |= !results.isEmpty();
                        int pick = -1;
                        for (int i = 0; i < results.size(); i++) {
                            RunResult r = results.get(i);
                            if (acceptable(r) && r.energyKWh() < best.energyKWh() - 1e-12
                                    && (pick < 0 || r.energyKWh() < results.get(pick).energyKWh())) {
                                pick = i;
                            }
                        }
                        if (pick >= 0) {
                            best = results.get(pick);
                            schedule = candidates.get(pick);
                            improved = true;
                        }
                    }
                }
            }
            if (tried) {
                finest = block;
            }
        }
        return new Refined(schedule, best, finest);
    }

    /** The eco caps (watts) the lower bounds allow: the configured eco cap and those by type, when given in watts. */
    private List<Double> capMenu() {
        TreeSet<Double> menu = new TreeSet<>();
        for (CpuPower c : EnergyBound.ecoCaps(config)) {
            if (c.packagePowerCapWatts() != null) {
                menu.add(c.packagePowerCapWatts());
            }
        }
        // a single cap leaves nothing to choose
        return menu.size() < 2 ? List.of() : List.copyOf(menu);
    }

    /** Type k's eco CPU cap in watts under this schedule (NaN when it is a percent). */
    private double effectiveEcoCap(Schedule s, int k) {
        Double w = s.settings(config.planner()).caps(Profile.ECO, Map.of(NodeType.LABEL, types.get(k))).cpu().packagePowerCapWatts();
        return w == null ? Double.NaN : w;
    }

    /** The blocks of this size, those where a count changes first, then the rest, each group in time order. */
    private static List<Integer> priority(Schedule s, int block, int ticks) {
        List<Integer> changing = new ArrayList<>();
        List<Integer> rest = new ArrayList<>();
        int[][] c = s.counts();
        for (int from = 0; from < ticks; from += block) {
            boolean changes = false;
            for (int[] row : c) {
                for (int t = Math.max(1, from); t < Math.min(ticks, from + block + 1) && !changes; t++) {
                    changes = row[Math.min(t, row.length - 1)] != row[Math.min(t - 1, row.length - 1)];
                }
            }
            (changes ? changing : rest).add(from);
        }
        changing.addAll(rest);
        return changing;
    }

    /** Steps from a quarter of {@code max} down to 1, each a quarter of the one before. */
    private static List<Integer> steps(int max) {
        List<Integer> steps = new ArrayList<>();
        for (int step = Math.max(1, max / 4); ; step = Math.max(1, step / 4)) {
            steps.add(step);
            if (step == 1) {
                return steps;
            }
        }
    }

    /** A total schedule's counts split over the types in proportion to their nodes (largest remainders). */
    private Schedule split(Schedule total) {
        int[] t = total.counts()[0];
        int n = config.nodes();
        int[][] rows = new int[types.size()][t.length];
        for (int i = 0; i < t.length; i++) {
            int hp = Math.clamp(t[i], 0, n);
            double[] exact = new double[types.size()];
            int given = 0;
            for (int k = 0; k < types.size(); k++) {
                exact[k] = (double) hp * nodesOfType[k] / n;
                rows[k][i] = (int) Math.floor(exact[k]);
                given += rows[k][i];
            }
            while (given < hp) {
                int pick = -1;
                for (int k = 0; k < types.size(); k++) {
                    if (rows[k][i] < nodesOfType[k] && (pick < 0 || exact[k] - rows[k][i] > exact[pick] - rows[pick][i])) {
                        pick = k;
                    }
                }
                rows[pick][i]++;
                given++;
            }
        }
        return new Schedule(rows, true, total.ecoCapWattsByType());
    }

    /** The schedule with {@code delta} added to one row over ticks [from, to), or null when nothing changes within [0, max]. */
    private static Schedule shifted(Schedule s, int row, int from, int to, int delta, int max) {
        int[][] c = s.counts();
        boolean changed = false;
        for (int t = from; t < to; t++) {
            int v = Math.clamp(c[row][t] + delta, 0, max);
            changed |= v != c[row][t];
            c[row][t] = v;
        }
        return changed ? s.withCounts(c) : null;
    }

    /** A schedule whose rows have this length: each row's last value repeated. */
    private static Schedule stretch(Schedule s, int ticks) {
        int[][] c = s.counts();
        for (int r = 0; r < c.length; r++) {
            int[] row = Arrays.copyOf(c[r], Math.max(ticks, c[r].length));
            for (int i = c[r].length; i < row.length; i++) {
                row[i] = c[r][c[r].length - 1];
            }
            c[r] = row;
        }
        return s.withCounts(c);
    }

    private List<RunResult> run(List<Schedule> schedules) {
        evaluations += schedules.size();
        return evaluateAll(config, jobs, schedules, options.threads());
    }
}
