package io.joulie.sim.optimum;

import io.joulie.planner.PodClass;
import io.joulie.sim.JobSpec;
import io.joulie.sim.SimConfig;
import io.joulie.sim.optimum.EnergyBound.Group;
import io.joulie.sim.optimum.EnergyBound.Setup;
import io.joulie.sim.optimum.EnergyBound.TypePoints;
import org.ojalgo.optimisation.Expression;
import org.ojalgo.optimisation.ExpressionsBasedModel;
import org.ojalgo.optimisation.Optimisation;
import org.ojalgo.optimisation.Variable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A time-indexed lower bound on the energy to finish the jobs (docs/simulation.md, "The time-indexed bound", decisions
 * 185 and 186): a linear program over time slots that the θ bound ({@link EnergyBound}) relaxes further by pooling all time.
 *
 * <p>Same action set as the θ bound (caps none / performance / eco per node, one frequency per node set by its cap,
 * nodes always on, performance-only work never under a cap below the performance cap), same operating points and the
 * same per-job price of a node's power. What it adds: in every slot of {@code slotSeconds} each type's jobs together
 * use at most its nodes' node-time of the slot, work is done only after it arrived, and a job does at most its cores'
 * work per second. Its variables are, per slot, node type and bucket of alike jobs, the work done at each vertex of
 * the bucket's (node-time, energy) frontier on the type and the node-time the bucket uses there; a bucket's energy is
 * at least its work priced on the frontier, and at least, for every θ of the grid, the θ bound's exact prices of its
 * members' work less θ·I × its node-time (the θ bound's inequality per bucket; with the θ bound's own θ among them,
 * the LP is never below the θ bound). The relaxations that keep it a bound on every schedule:
 * <ul>
 * <li>each bucket's frontier is an outer approximation: for every θ of a grid, no operating point does a unit of work
 * with energy below {@code cheapest(θ) − θ·I·nodeTime} ({@link TypePoints#cheapest} is a minimum over the points),
 * priced for the bucket's least sensitive, least busy, smallest member (no member costs less);</li>
 * <li>work and node-time are fractional; arrivals are counted from the start of their slot; per-job limits (one node,
 * its own cores) are pooled over each bucket;</li>
 * <li>every node draws its least idle power for T_lb (the makespan's lower bound); work after T_lb needs no node but
 * pays its node-time at the idle power (a schedule that runs past T_lb keeps every node of a type on for at least the
 * node-time it uses there divided by the type's nodes).</li>
 * </ul>
 * With a finite {@link Options#performanceSlowdown} ρ it is a bound only on the schedules where every performance-only
 * job finishes within ρ × its work over its cores (boards at the slowest type's throughput) from its arrival.
 *
 * @param kWh         the bound: the LP's optimum plus every node's idle power for T_lb
 * @param gpuKWh      the GPU buckets' energy, their node-time after T_lb at idle power, and the boards' idle power
 * @param slotSeconds the slot length solved with
 * @param slots       number of slots (the last one ends at T_lb)
 * @param variables   the LP's size
 * @param constraints the LP's size
 * @param solved      false when the solver did not reach the optimum within {@link #TIME_LIMIT_MILLIS}: the values are
 *                    then the θ bound's (a feasible but unfinished LP point is no bound)
 */
public record TimeIndexedBound(double kWh, double gpuKWh, double slotSeconds, int slots, int variables, int constraints, boolean solved) {
    /** The solver's wall-time limit: the calibrated day's LP does not finish in 17 minutes with ojAlgo (decision 185). */
    public static final long TIME_LIMIT_MILLIS = 120_000;


    /**
     * @param slotSeconds         the slot length
     * @param steps               jobs are bucketed by sensitivity and activity in steps of 1 / steps
     * @param performanceSlowdown ρ: every performance-only job done within ρ × its shortest run (∞: no such constraint)
     * @param roundCores          group jobs by their cores rounded down to a power of two (fewer groups, a looser bound)
     */
    public record Options(double slotSeconds, int steps, double performanceSlowdown, boolean roundCores) {
        /** 15-minute slots, sensitivity and activity buckets of 0.2, cores to powers of two: the size `bench` solves. */
        public static final Options DEFAULT = new Options(900, 5, Double.POSITIVE_INFINITY, true);

        public Options {
            SimConfig.require(slotSeconds > 0, "slot length must be positive, got " + slotSeconds);
            SimConfig.require(steps > 0, "steps must be positive, got " + steps);
            SimConfig.require(performanceSlowdown >= 1, "performance slowdown must be at least 1, got " + performanceSlowdown);
        }
    }

    /** The θ values whose supporting lines outline each group's frontier (θ = 0 and 1 are needed; more only tighten). */
    static final double[] THETAS = {0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 2, 3, 5, 10};

    /** Work in core-hours (board-hours), node-time in node-hours, energy in kWh inside the LP: moderate magnitudes. */
    private static final double HOUR = 3600;

    public static TimeIndexedBound of(SimConfig config, List<JobSpec> jobs) {
        return of(config, jobs, Options.DEFAULT);
    }

    /** The slot lengths {@link #solvedOrCoarser} tries, in order: the default's 15 minutes, then an hour. */
    public static final double[] SLOTS = {900, 3600};

    /**
     * The bound with the default options, or, when the solver does not finish in its time limit, with longer slots
     * ({@link #SLOTS}): a longer slot relaxes more (arrivals move further back, capacity pools over more time) and is
     * still a bound; fewer slots make a smaller LP. The calibrated day solves with hour slots in under a minute where
     * 15-minute slots did not finish in 17 (decision 212).
     */
    public static TimeIndexedBound solvedOrCoarser(SimConfig config, List<JobSpec> jobs) {
        TimeIndexedBound b = null;
        for (double slot : SLOTS) {
            Options d = Options.DEFAULT;
            b = of(config, jobs, new Options(slot, d.steps(), d.performanceSlowdown(), d.roundCores()));
            if (b.solved()) {
                return b;
            }
        }
        return b;
    }

    public static TimeIndexedBound of(SimConfig config, List<JobSpec> jobs, Options options) {
        Setup setup = Setup.of(config, jobs, EnergyBound.ecoCaps(config));
        // the θ bound's own θs among the lines: with the same groups the LP is then never below it (docs/simulation.md)
        EnergyBound theta = EnergyBound.of(config, jobs);
        double[] cpuThetas = withTheta(theta.theta());
        double[] gpuThetas = withTheta(theta.gpuTheta());
        double tLb = setup.tLb();
        int slots = (int) Math.ceil(tLb / options.slotSeconds() - 1e-9);
        double[] end = new double[slots];
        for (int t = 0; t < slots; t++) {
            end[t] = Math.min(tLb, (t + 1) * options.slotSeconds());
        }
        double slowestBoard = setup.boards().stream().mapToDouble(b -> 1 / b.leastNodeTimePerWork()).min().orElse(1);

        // buckets of alike jobs (performance-only or not, cores, sensitivity and activity to 1 / steps), each priced as
        // its least sensitive, least busy, smallest member: no member costs less
        Map<Key, List<JobSpec>> buckets = new LinkedHashMap<>();
        for (JobSpec j : jobs) {
            boolean gpu = j.usesGpus();
            int cores = gpu ? 1 : options.roundCores() ? Integer.highestOneBit(j.cores()) : j.cores();
            buckets.computeIfAbsent(new Key(gpu, new Group(j.podClass() == PodClass.PERFORMANCE, cores,
                    floor(j.sensitivity(), options.steps()), gpu ? 1 : floor(j.activity(), options.steps()))), k -> new ArrayList<>()).add(j);
        }
        // per group: [0] released by the end of slot t, [1] due by the end of slot t, [2] at most doable in slot t, [3][0] total
        Map<Key, double[][]> groups = new LinkedHashMap<>();
        Map<Key, double[]> exact = new java.util.HashMap<>();
        for (Map.Entry<Key, List<JobSpec>> b : buckets.entrySet()) {
            List<JobSpec> members = b.getValue();
            boolean gpu = b.getKey().gpu();
            Group least = new Group(b.getKey().group().performanceOnly(),
                    gpu ? 1 : members.stream().mapToInt(JobSpec::cores).min().orElseThrow(),
                    floor(members.stream().mapToDouble(JobSpec::sensitivity).min().orElseThrow(), EnergyBound.SENSITIVITY_STEPS),
                    gpu ? 1 : floor(members.stream().mapToDouble(JobSpec::activity).min().orElseThrow(), EnergyBound.ACTIVITY_STEPS));
            double[][] a = new double[][] {new double[slots], new double[slots], new double[slots], new double[1], null};
            groups.put(new Key(gpu, least), a);
            // [4] for each θ of the lines: Σ over members of work × the θ bound's exact price (kWh), the cut on the bucket
            double[] thetas = gpu ? gpuThetas : cpuThetas;
            a[4] = new double[thetas.length];
            for (JobSpec j : members) {
                double[] price = exact.computeIfAbsent(new Key(gpu, EnergyBound.group(j, setup.partlyBusy())), k -> {
                    double[] p = new double[thetas.length];
                    for (int m = 0; m < thetas.length; m++) {
                        double min = Double.POSITIVE_INFINITY;
                        for (TypePoints r : gpu ? setup.boards() : setup.points()) {
                            if (r.runsJobs()) {
                                min = Math.min(min, r.cheapest(k.group(), thetas[m]));
                            }
                        }
                        p[m] = min;
                    }
                    return p;
                });
                for (int m = 0; m < thetas.length; m++) {
                    a[4][m] += j.work() * price[m] / 3.6e6;
                }
            }
            for (JobSpec j : members) {
                double rate = gpu ? j.gpus() / setup.boards().stream().mapToDouble(TypePoints::leastNodeTimePerWork).min().orElse(1)
                        : j.cores();
                double due = j.podClass() == PodClass.PERFORMANCE && Double.isFinite(options.performanceSlowdown())
                        ? j.arrival() + options.performanceSlowdown() * j.work() / (gpu ? j.gpus() * slowestBoard : j.cores())
                        : Double.POSITIVE_INFINITY;
                for (int t = 0; t < slots; t++) {
                    double start = t * options.slotSeconds();
                    if (j.arrival() < end[t]) {
                        a[0][t] += j.work();
                        a[2][t] += rate * (end[t] - Math.max(start, j.arrival()));
                    }
                    if (due <= end[t]) {
                        a[1][t] += j.work();
                    }
                }
                a[3][0] += j.work();
            }
        }

        ExpressionsBasedModel model = new ExpressionsBasedModel();
        List<TypePoints> cpu = setup.points().stream().filter(TypePoints::runsJobs).toList();
        List<TypePoints> boards = setup.boards();
        // capacity rows: per slot and type, node-hours used ≤ nodes × slot hours
        Map<TypePoints, Expression[]> capacity = new LinkedHashMap<>();
        for (TypePoints r : concat(cpu, boards)) {
            Expression[] rows = new Expression[slots];
            for (int t = 0; t < slots; t++) {
                double length = end[t] - (t == 0 ? 0 : end[t - 1]);
                rows[t] = model.addExpression().upper(r.nodes() * length / HOUR);
            }
            capacity.put(r, rows);
        }
        List<Variable> gpuEnergy = new ArrayList<>();
        int gi = 0;
        for (Map.Entry<Key, double[][]> e : groups.entrySet()) {
            Group g = e.getKey().group();
            double[][] a = e.getValue();
            double[] thetas = e.getKey().gpu() ? gpuThetas : cpuThetas;
            List<TypePoints> on = e.getKey().gpu() ? boards : cpu;
            Variable[] cumulative = new Variable[slots];
            Expression[] rate = new Expression[slots];
            Expression[] flow = new Expression[slots];
            for (int t = 0; t < slots; t++) {
                cumulative[t] = model.addVariable("S" + gi + "_" + t).lower(Math.min(a[1][t], a[0][t]) / HOUR).upper(a[0][t] / HOUR);
                rate[t] = model.addExpression().upper(a[2][t] / HOUR);
                // S_t − S_{t−1} − Σ y_t = 0
                flow[t] = model.addExpression().level(0);
                flow[t].set(cumulative[t], 1);
                if (t > 0) {
                    flow[t].set(cumulative[t - 1], -1);
                }
            }
            Expression total = model.addExpression().level(a[3][0] / HOUR);
            if (slots > 0) {
                total.set(cumulative[slots - 1], 1);
            }
            // the bucket's energy (kWh): at least its work priced on its frontier, slot by slot, and at least the θ
            // bound's exact prices of its members less θ × idle × the node-time it used (one cut per θ)
            Variable energy = model.addVariable("E" + gi).lower(0).weight(1);
            Expression onFrontier = model.addExpression().lower(0);
            onFrontier.set(energy, 1);
            Expression[] cuts = new Expression[thetas.length];
            for (int m = 0; m < thetas.length; m++) {
                cuts[m] = model.addExpression().lower(a[4][m]);
                cuts[m].set(energy, 1);
            }
            if (e.getKey().gpu()) {
                gpuEnergy.add(energy);
            }
            for (TypePoints r : on) {
                double[][] frontier = frontier(r, g, thetas);
                for (int t = 0; t <= slots; t++) {
                    // t = slots: after T_lb, no capacity, node-time paid at idle power (the objective's weight on z)
                    boolean late = t == slots;
                    Variable z = model.addVariable().lower(0).weight(late ? r.idle() / 1000 : 0);
                    if (late && e.getKey().gpu()) {
                        gpuEnergy.add(z);
                    }
                    Expression used = model.addExpression().lower(0);
                    used.set(z, 1);
                    for (int m = 0; m < thetas.length; m++) {
                        cuts[m].set(z, thetas[m] * r.idle() / 1000);
                    }
                    if (!late) {
                        capacity.get(r)[t].set(z, 1);
                    }
                    for (double[] v : frontier) {
                        Variable y = model.addVariable().lower(0);
                        (late ? total : flow[t]).set(y, late ? 1 : -1);
                        if (!late) {
                            rate[t].set(y, 1);
                        }
                        used.set(y, -v[0]);
                        onFrontier.set(y, -v[1] / 1000);
                    }
                }
            }
            gi++;
        }
        model.options.time_abort = TIME_LIMIT_MILLIS;
        Optimisation.Result result = model.minimise();
        if (!result.getState().isOptimal()) {
            return new TimeIndexedBound(theta.kWh(), theta.gpuKWh(), options.slotSeconds(), slots, model.countVariables(), model.countExpressions(), false);
        }
        double idleKWh = 0;
        double boardIdleKWh = 0;
        for (TypePoints r : setup.points()) {
            idleKWh += r.nodes() * r.idle() * tLb / 3.6e6;
        }
        for (TypePoints r : boards) {
            boardIdleKWh += r.nodes() * r.idle() * tLb / 3.6e6;
        }
        double gpuDynamic = 0;
        for (Variable v : gpuEnergy) {
            gpuDynamic += v.getContributionWeight() == null ? 0 : v.getValue().doubleValue() * v.getContributionWeight().doubleValue();
        }
        return new TimeIndexedBound(result.getValue() + idleKWh + boardIdleKWh, gpuDynamic + boardIdleKWh, options.slotSeconds(), slots,
                model.countVariables(), model.countExpressions(), true);
    }

    /**
     * The vertices (node-seconds, joules per unit of work) of the region {e ≥ cheapest(θ) − θ·I·q for every θ of
     * {@link #THETAS}, q ≥ the least node-time}: every operating point of the type lies in it; a point to its right
     * or above is never needed (the LP only minimises energy and bounds node-time).
     */
    static double[][] frontier(TypePoints r, Group g, double[] thetas) {
        int m = thetas.length;
        double[] h = new double[m];
        for (int i = 0; i < m; i++) {
            h[i] = r.cheapest(g, thetas[i]);
        }
        double idle = r.idle();
        double qMin = r.leastNodeTimePerWork();
        if (idle <= 0) {
            return new double[][] {{qMin, h[0]}};
        }
        // candidate abscissae: qMin and every pairwise intersection right of it
        List<Double> qs = new ArrayList<>(List.of(qMin));
        for (int i = 0; i < m; i++) {
            for (int k = i + 1; k < m; k++) {
                double q = (h[k] - h[i]) / ((thetas[k] - thetas[i]) * idle);
                if (q > qMin && Double.isFinite(q)) {
                    qs.add(q);
                }
            }
        }
        qs.sort(Double::compare);
        List<double[]> points = new ArrayList<>();
        for (double q : qs) {
            double env = 0;
            for (int i = 0; i < m; i++) {
                env = Math.max(env, h[i] - thetas[i] * idle * q);
            }
            // keep only kinks: drop the last point when it lies on the segment from its predecessor to this one
            while (points.size() >= 2) {
                double[] p0 = points.get(points.size() - 2);
                double[] p1 = points.get(points.size() - 1);
                double cross = (p1[0] - p0[0]) * (env - p0[1]) - (p1[1] - p0[1]) * (q - p0[0]);
                if (Math.abs(cross) <= 1e-12 * Math.max(1, Math.abs(p1[1]) * Math.abs(q))) {
                    points.removeLast();
                } else {
                    break;
                }
            }
            if (points.isEmpty() || q - points.getLast()[0] > 1e-15) {
                points.add(new double[] {q, env});
            }
        }
        // once the envelope is flat (θ = 0 on top) further points only cost more node-time
        List<double[]> kept = new ArrayList<>();
        for (double[] p : points) {
            kept.add(p);
            if (p[1] <= h[0] + 1e-12 * Math.abs(h[0])) {
                break;
            }
        }
        return kept.toArray(double[][]::new);
    }

    /** A group of alike jobs, on boards or on CPUs. */
    private record Key(boolean gpu, Group group) {
    }

    private static double[] withTheta(double theta) {
        double[] all = java.util.Arrays.copyOf(THETAS, THETAS.length + 1);
        all[THETAS.length] = theta;
        java.util.Arrays.sort(all);
        return all;
    }

    private static double floor(double x, int steps) {
        return Math.floor(x * steps) / steps;
    }

    private static List<TypePoints> concat(List<TypePoints> a, List<TypePoints> b) {
        List<TypePoints> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
