package io.joulie.sim.optimum;

import io.joulie.planner.PodClass;
import io.joulie.sim.JobSpec;
import io.joulie.sim.NodeType;
import io.joulie.sim.RunResult;
import io.joulie.sim.SimConfig;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The clairvoyant constructive schedule (docs/simulation.md, "Bracketing the optimum"; decision 191): an upper bound on
 * the optimum, since it is a schedule that the twin runs through the operator's eco selection and guard like any other,
 * and a feasible one when it finishes every job without a violation within the service level.
 *
 * <p>It knows every job: at each planner tick it counts the cores (boards, on GPU servers) that the performance-only
 * jobs would hold if each ran at full speed from when a first-come-first-served pool of the cluster's cores would
 * start it ({@link #starts}), takes the largest count over this tick and the next
 * {@link #LOOKAHEAD_TICKS} (so the nodes are performance before the work arrives), and keeps in performance, per node
 * type, that demand's share of the type's capacity divided by a fill target; the rest goes eco, less what the eco-only
 * jobs need the same way; after the estimated end it keeps room for the largest performance-only job. Variants: fill 0.5, 0.7, 0.9, each with the performance pool sized for the performance-only
 * work alone or also for the unconstrained, undeclared work that is sensitive to the clock (s ≥ {@link #SENSITIVE}),
 * which runs faster and, under a cap at the knee, no dearer there. The best variant that meets the service level is the
 * result. Greedy, not optimal: that is what the hindsight search and the lower bounds are for.
 */
public final class ClairvoyantSchedule {
    /** Ticks ahead whose demand a tick already covers. */
    static final int LOOKAHEAD_TICKS = 2;
    /** The clock sensitivity from which an unconstrained job counts as compute-bound. */
    static final double SENSITIVE = 0.7;

    /**
     * @param fill         the share of a performance node's cores (boards) the demand may fill
     * @param computeBound whether the unconstrained, undeclared, compute-bound work also sizes the performance pool
     */
    public record Variant(double fill, boolean computeBound) {
        public Variant {
            SimConfig.require(fill > 0 && fill <= 1, "fill must be in (0, 1], got " + fill);
        }

        public String name() {
            return String.format(Locale.ROOT, "clairvoyant fill %.1f%s", fill, computeBound ? " + compute-bound" : "");
        }
    }

    /** The variants tried, in order. */
    public static final List<Variant> VARIANTS = List.of(new Variant(0.5, false), new Variant(0.7, false), new Variant(0.9, false),
            new Variant(0.5, true), new Variant(0.7, true), new Variant(0.9, true));

    /**
     * @param run      the best acceptable variant's run (all-performance's when none is acceptable)
     * @param schedule its schedule
     * @param variant  its name
     * @param tried    every variant's run, by name
     */
    public record Result(RunResult run, Schedule schedule, String variant, Map<String, RunResult> tried, boolean acceptable) {
    }

    private ClairvoyantSchedule() {
    }

    /** The variant's per-type schedule for these jobs. */
    public static Schedule of(SimConfig config, List<JobSpec> jobs, Variant v) {
        double tick = config.tickSeconds();
        List<NodeType> types = config.nodeTypes();
        int[] nodes = new int[types.size()];
        config.typeOfEachNode().forEach(t -> nodes[t]++);
        double cpuCapacity = 0;
        double boardCapacity = 0;
        for (int k = 0; k < types.size(); k++) {
            if (types.get(k).hasGpus()) {
                boardCapacity += (double) nodes[k] * types.get(k).boards();
            } else {
                cpuCapacity += (double) nodes[k] * types.get(k).model().cores();
            }
        }
        double[] start = starts(jobs, cpuCapacity, boardCapacity);
        double lastEnd = 0;
        for (JobSpec j : jobs) {
            lastEnd = Math.max(lastEnd, start[j.id()] + duration(j));
        }
        // one tick more than the estimated end: the tail value, which holds if the run lasts longer than estimated
        int ticks = (int) Math.ceil(lastEnd / tick) + 2;
        // demand per tick: [0] CPU performance, [1] CPU eco-only, [2] boards performance, [3] boards eco-only
        double[][] demand = new double[4][ticks];
        // the largest performance-only job of each family (cores, boards): the tail keeps room for it
        double[] largest = new double[4];
        for (JobSpec j : jobs) {
            boolean performance = j.podClass() == PodClass.PERFORMANCE || v.computeBound() && j.podClass() == PodClass.UNCONSTRAINED
                    && !j.declaresEco() && j.sensitivity() >= SENSITIVE;
            boolean ecoOnly = j.podClass() == PodClass.ECO;
            if (!performance && !ecoOnly) {
                continue;
            }
            int row = (j.usesGpus() ? 2 : 0) + (performance ? 0 : 1);
            double amount = j.usesGpus() ? j.gpus() : j.cores();
            largest[row] = Math.max(largest[row], amount);
            int from = (int) Math.floor(start[j.id()] / tick);
            int to = Math.min(ticks - 2, (int) Math.ceil((start[j.id()] + duration(j)) / tick));
            for (int t = from; t <= to; t++) {
                demand[row][t] += amount;
            }
        }
        for (int row = 0; row < 4; row++) {
            demand[row][ticks - 1] = largest[row];
        }
        int[][] counts = new int[types.size()][ticks];
        for (int t = 0; t < ticks; t++) {
            double[] need = new double[4];
            for (int row = 0; row < 4; row++) {
                for (int u = t; u <= Math.min(ticks - 1, t + LOOKAHEAD_TICKS); u++) {
                    need[row] = Math.max(need[row], demand[row][u]);
                }
            }
            for (int k = 0; k < types.size(); k++) {
                boolean gpu = types.get(k).hasGpus();
                double capacity = gpu ? boardCapacity : cpuCapacity;
                double perNode = gpu ? types.get(k).boards() : types.get(k).model().cores();
                // the type's share of the demand, in its nodes at the fill target
                double share = nodes[k] * perNode / capacity;
                int performance = (int) Math.ceil(need[gpu ? 2 : 0] * share / (perNode * v.fill()) - 1e-9);
                int eco = (int) Math.ceil(need[gpu ? 3 : 1] * share / (perNode * v.fill()) - 1e-9);
                counts[k][t] = Math.clamp(performance, 0, Math.max(0, nodes[k] - eco));
            }
        }
        return Schedule.perType(counts);
    }

    /** How long the job runs at full speed (boards at throughput 1, the catalog's slowest). */
    static double duration(JobSpec j) {
        return j.work() / (j.usesGpus() ? j.gpus() : j.cores());
    }

    /**
     * When each job (by id) starts if the cluster were one pool of its CPU servers' cores (GPU servers' boards for GPU
     * jobs) serving jobs first come, first served at full speed: a job waits for the cores the jobs before it hold.
     * Without queueing in all-performance that is its arrival; with queueing it is roughly when all-performance starts it.
     */
    static double[] starts(List<JobSpec> jobs, double cpuCapacity, double boardCapacity) {
        double[] start = new double[jobs.stream().mapToInt(JobSpec::id).max().orElse(-1) + 1];
        List<JobSpec> byArrival = jobs.stream().sorted(java.util.Comparator.comparingDouble(JobSpec::arrival)
                .thenComparingInt(JobSpec::id)).toList();
        for (boolean gpu : new boolean[] {false, true}) {
            double capacity = gpu ? boardCapacity : cpuCapacity;
            // running jobs: {end, amount}, earliest end first
            java.util.PriorityQueue<double[]> running = new java.util.PriorityQueue<>(java.util.Comparator.comparingDouble(e -> e[0]));
            double used = 0;
            double clock = 0;
            for (JobSpec j : byArrival) {
                if (j.usesGpus() != gpu) {
                    continue;
                }
                double amount = Math.min(capacity, j.usesGpus() ? j.gpus() : j.cores());
                clock = Math.max(clock, j.arrival());
                while (!running.isEmpty() && (running.peek()[0] <= clock || used + amount > capacity + 1e-9)) {
                    double[] done = running.poll();
                    used -= done[1];
                    clock = Math.max(clock, done[0]);
                }
                start[j.id()] = clock;
                used += amount;
                running.add(new double[] {clock + duration(j), amount});
            }
        }
        return start;
    }

    /**
     * Runs every variant through the twin and keeps the best one that finishes every job without a violation and keeps
     * performance-only jobs' mean completion within {@code maxPerformanceCompletion} seconds.
     */
    public static Result best(SimConfig config, List<JobSpec> jobs, int threads, double maxPerformanceCompletion) {
        List<Schedule> schedules = new ArrayList<>();
        for (Variant v : VARIANTS) {
            schedules.add(of(config, jobs, v));
        }
        List<RunResult> runs = HindsightOptimizer.evaluateAll(config, jobs, schedules, threads);
        Map<String, RunResult> tried = new LinkedHashMap<>();
        int best = -1;
        for (int i = 0; i < runs.size(); i++) {
            tried.put(VARIANTS.get(i).name(), runs.get(i));
            if (HindsightOptimizer.acceptable(runs.get(i), maxPerformanceCompletion)
                    && (best < 0 || runs.get(i).energyKWh() < runs.get(best).energyKWh())) {
                best = i;
            }
        }
        if (best >= 0) {
            return new Result(runs.get(best), schedules.get(best), VARIANTS.get(best).name(), tried, true);
        }
        for (int i = 0; i < runs.size(); i++) {
            if (HindsightOptimizer.acceptable(runs.get(i), Double.POSITIVE_INFINITY)
                    && (best < 0 || runs.get(i).energyKWh() < runs.get(best).energyKWh())) {
                best = i;
            }
        }
        if (best >= 0) {
            return new Result(runs.get(best), schedules.get(best), VARIANTS.get(best).name() + " (outside the service level)", tried, false);
        }
        Schedule all = Schedule.total(new int[] {config.nodes()});
        RunResult r = HindsightOptimizer.evaluate(config, jobs, all);
        return new Result(r, all, "all performance (no variant finishes without a violation)", tried,
                HindsightOptimizer.acceptable(r, maxPerformanceCompletion));
    }
}
