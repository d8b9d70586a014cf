package io.joulie.sim.optimum;

import io.joulie.api.v1alpha1.NodePowerProfileSpec.CpuPower;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.GpuPower;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.planner.PodClass;
import io.joulie.planner.ProfileCaps;
import io.joulie.sim.GpuModel;
import io.joulie.sim.JobSpec;
import io.joulie.sim.NodeModel;
import io.joulie.sim.NodeType;
import io.joulie.sim.SimConfig;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A lower bound on the energy any schedule needs to finish the jobs with zero contract violations, on this
 * cluster, with these caps (docs/simulation.md, "The lower bound", proves it). For any θ ∈ [0, 1]:
 *
 * <pre>
 *   E ≥ (1 − θ) · Σ_k N_k · I_k · T_lb  +  Σ_j W_j · min over allowed (k, u, cap) of (m_k(u, cap) + θ·I_k) / (u·C_k · v_j(f))
 * </pre>
 *
 * where type k has N_k nodes of C_k cores and idle power I_k, m_k(u, cap) is the measured power above idle of such
 * a node at utilisation u under the cap (at the frequency f the cap leaves, duty-cycled when it cannot meet it),
 * v_j(f) the per-core speed of job j there, W_j its work, and T_lb a lower bound on the makespan. A performance-only job is allowed only caps at or
 * above the performance cap (below it would be a violation); u ranges over the utilisations a node hosting the job
 * can have (at least its own cores). The bound reported is the largest over a search of θ.
 *
 * <p>With GPU nodes, the CPU parts and the GPU boards are bounded apart and the two bounds added: the CPU bound prices
 * the CPU jobs only (on the types without GPUs, where they run) and keeps every node's idle power, GPU nodes' hosts
 * included; the GPU bound is the same inequality over boards, each board a one-"core" node of its own (busy or idle,
 * under the default, the performance or the eco limit), and the GPU jobs' work in board-seconds.
 *
 * @param kWh                     the bound (CPU parts and GPU boards)
 * @param gpuKWh                  the GPU boards' part of it
 * @param makespanLowerBound      T_lb, seconds
 * @param theta                   the θ that gave the CPU part
 * @param gpuTheta                the θ that gave the GPU boards' part
 */
public record EnergyBound(double kWh, double gpuKWh, double makespanLowerBound, double theta, double gpuTheta) {
    /** Sensitivities are rounded down to this grid (a lower sensitivity never costs more: the bound stays valid). */
    static final int SENSITIVITY_STEPS = 1000;
    /**
     * With jobs that keep fewer cores busy than they request, sensitivities and activities are rounded down to this grid
     * (a lower activity never costs more either), to keep the number of groups small.
     */
    static final int ACTIVITY_STEPS = 100;
    /** Pieces each 10 % of a node's load is cut into when loads are priced by busy cores rather than by requests. */
    static final int LOAD_PIECES = 4;

    /** The bound for the configured performance and eco caps, those by node type, and no cap. */
    public static EnergyBound of(SimConfig config, List<JobSpec> jobs) {
        return of(config, jobs, ecoCaps(config));
    }

    /** The configured eco cap and those by node type: the lower caps both bounds allow. */
    static List<CpuPower> ecoCaps(SimConfig config) {
        List<CpuPower> eco = new ArrayList<>(List.of(config.planner().caps(Profile.ECO).cpu()));
        config.planner().ecoCapWattsByType().values().forEach(w -> eco.add(CpuPower.watts(w)));
        return eco;
    }

    /**
     * The pieces of the bound shared with {@link TimeIndexedBound}: each CPU type's and each GPU type's operating points
     * (the GPU types' hosts among the CPU types, running no job), the makespan's lower bound, and whether some job keeps
     * fewer cores busy than it requests.
     */
    record Setup(List<TypePoints> points, List<TypePoints> boards, double tLb, boolean partlyBusy) {
        static Setup of(SimConfig config, List<JobSpec> jobs, List<CpuPower> lowerCaps) {
            SimConfig.require(!jobs.isEmpty(), "no jobs, no bound");
            List<NodeType> types = config.nodeTypes();
            int[] count = new int[types.size()];
            config.typeOfEachNode().forEach(t -> count[t]++);
            ProfileCaps perf = config.planner().caps(Profile.PERFORMANCE);
            GpuPower ecoGpu = config.planner().caps(Profile.ECO).gpu();
            List<TypePoints> points = new ArrayList<>();
            List<TypePoints> boards = new ArrayList<>();
            long cpuCores = 0;
            double boardCapacity = 0;
            double fastestBoard = 0;
            // the least intense CPU job: under a cap, a node's frequency lies between what compute-bound work and what work
            // this intense would leave it
            double lowestSensitivity = jobs.stream().filter(j -> !j.usesGpus()).mapToDouble(JobSpec::sensitivity).min().orElse(1);
            // jobs that keep fewer cores busy than they request: a node's load is then not its requested cores
            boolean partlyBusy = jobs.stream().anyMatch(j -> j.activity() < 1);
            for (int k = 0; k < types.size(); k++) {
                if (count[k] > 0) {
                    NodeType type = types.get(k);
                    NodeModel m = type.model();
                    points.add(CpuPoints.of(m, count[k], m.capWatts(perf.cpu()), lowerCaps.stream().map(m::capWatts).toList(),
                            !type.hasGpus(), m.intensity(lowestSensitivity), partlyBusy));
                    if (type.hasGpus()) {
                        GpuModel gpu = type.gpu();
                        boards.add(BoardPoints.of(gpu, count[k] * gpu.boards(), gpu.capWatts(perf.gpu()),
                                List.of(gpu.capWatts(ecoGpu), gpu.defaultLimitWatts())));
                        boardCapacity += (double) count[k] * gpu.boards() * gpu.throughput();
                        fastestBoard = Math.max(fastestBoard, gpu.throughput());
                    } else {
                        cpuCores += (long) count[k] * m.cores();
                    }
                }
            }
            return new Setup(points, boards, makespanLowerBound(jobs, cpuCores, boardCapacity, fastestBoard), partlyBusy);
        }
    }

    /** The group a job is priced in (a GPU job's work per board: a one-"core" group of its boards' work). */
    static Group group(JobSpec j, boolean partlyBusy) {
        int steps = partlyBusy ? ACTIVITY_STEPS : SENSITIVITY_STEPS;
        return new Group(j.podClass() == PodClass.PERFORMANCE, j.usesGpus() ? 1 : j.cores(),
                Math.floor(j.sensitivity() * steps) / steps,
                j.usesGpus() ? 1 : Math.floor(j.activity() * ACTIVITY_STEPS) / ACTIVITY_STEPS);
    }

    /** A bound's value in joules, and the θ that gave it. */
    private record Best(double joules, double theta) {
    }

    /**
     * The bound when nodes may also run under any of {@code lowerCaps} (for jobs that are not performance-only), each
     * resolved on each node type's model (a percent of its highest cap).
     */
    public static EnergyBound of(SimConfig config, List<JobSpec> jobs, List<CpuPower> lowerCaps) {
        Setup setup = Setup.of(config, jobs, lowerCaps);
        List<TypePoints> points = setup.points();
        List<TypePoints> boards = setup.boards();
        double tLb = setup.tLb();
        boolean partlyBusy = setup.partlyBusy();
        Map<Group, Double> work = new HashMap<>();
        Map<Group, Double> boardWork = new HashMap<>();
        for (JobSpec j : jobs) {
            (j.usesGpus() ? boardWork : work).merge(group(j, partlyBusy), j.work(), Double::sum);
        }
        Best cpu = maximize(points, new ArrayList<>(work.entrySet()), tLb);
        Best gpu = boards.isEmpty() ? new Best(0, 0) : maximize(boards, new ArrayList<>(boardWork.entrySet()), tLb);
        return new EnergyBound((cpu.joules() + gpu.joules()) / 3.6e6, gpu.joules() / 3.6e6, tLb, cpu.theta(), gpu.theta());
    }

    /**
     * The largest LB(θ) over θ ∈ [0, 1]. LB(θ) is concave in θ (a sum of minima of affine functions): a ternary search
     * finds its maximum; every θ evaluated gives a valid bound, so the best one seen is kept.
     */
    private static Best maximize(List<TypePoints> points, List<Map.Entry<Group, Double>> groups, double tLb) {
        double lo = 0;
        double hi = 1;
        double bestTheta = 0;
        double best = bound(0, points, groups, tLb);
        double atOne = bound(1, points, groups, tLb);
        if (atOne > best) {
            best = atOne;
            bestTheta = 1;
        }
        for (int i = 0; i < 60; i++) {
            double a = lo + (hi - lo) / 3;
            double b = hi - (hi - lo) / 3;
            double fa = bound(a, points, groups, tLb);
            double fb = bound(b, points, groups, tLb);
            if (fa > best) {
                best = fa;
                bestTheta = a;
            }
            if (fb > best) {
                best = fb;
                bestTheta = b;
            }
            if (fa < fb) {
                lo = a;
            } else {
                hi = b;
            }
        }
        return new Best(best, bestTheta);
    }

    /**
     * No schedule ends before every job could have run alone at full speed from its arrival (on its cores, or its
     * boards), nor before the CPU work that arrives from any instant on could have been done by every core of the
     * nodes without GPUs at full speed, nor the GPU work by every board (each at its type's throughput; a job alone on
     * the fastest boards).
     */
    static double makespanLowerBound(List<JobSpec> jobs, long cpuCores, double boardCapacity, double fastestBoard) {
        double t = 0;
        double later = 0;
        double laterOnBoards = 0;
        List<JobSpec> byArrival = jobs.stream().sorted(java.util.Comparator.comparingDouble(JobSpec::arrival)).toList();
        for (int i = byArrival.size() - 1; i >= 0; i--) {
            JobSpec j = byArrival.get(i);
            if (j.usesGpus()) {
                t = Math.max(t, j.arrival() + j.work() / (j.gpus() * fastestBoard));
                laterOnBoards += j.work();
                t = Math.max(t, j.arrival() + laterOnBoards / boardCapacity);
            } else {
                t = Math.max(t, j.arrival() + j.work() / j.cores());
                later += j.work();
                t = Math.max(t, j.arrival() + later / cpuCores);
            }
        }
        return t;
    }

    /** LB(θ) in joules. */
    private static double bound(double theta, List<TypePoints> types, List<Map.Entry<Group, Double>> groups, double tLb) {
        double e = 0;
        for (TypePoints t : types) {
            e += (1 - theta) * t.nodes() * t.idle() * tLb;
        }
        for (Map.Entry<Group, Double> g : groups) {
            double cheapest = Double.POSITIVE_INFINITY;
            for (TypePoints t : types) {
                if (t.runsJobs()) {
                    cheapest = Math.min(cheapest, t.cheapest(g.getKey(), theta));
                }
            }
            e += g.getValue() * cheapest;
        }
        return e;
    }

    /**
     * A lower bound on min over f ∈ [lo, hi] of (a + b·f^β) / (1 − s + s·f): the ratio of a convex increasing
     * function to a positive affine one is quasi-convex, and the sign of its derivative's numerator
     * {@code g(f) = β·b·f^(β−1)·(1 − s + s·f) − s·(a + b·f^β)} does not fall with f. β = 2 is solved in closed form; any
     * other β by bisection on g, the final bracket priced at its lower end's numerator over its upper end's
     * denominator (never above the minimum).
     */
    static double minOver(double a, double b, double beta, double s, double lo, double hi) {
        if (hi - lo < 1e-12 || s <= 0 || b <= 0) {
            return cost(a, b, beta, s, lo);
        }
        if (beta == 2) {
            double c = 1 - s;
            double f = (-b * c + Math.sqrt(b * b * c * c + b * s * s * a)) / (b * s);
            return cost(a, b, beta, s, Math.clamp(f, lo, hi));
        }
        if (slope(a, b, beta, s, lo) >= 0) {
            return cost(a, b, beta, s, lo);
        }
        if (slope(a, b, beta, s, hi) <= 0) {
            return cost(a, b, beta, s, hi);
        }
        double l = lo;
        double h = hi;
        for (int k = 0; k < 40; k++) {
            double mid = (l + h) / 2;
            if (slope(a, b, beta, s, mid) < 0) {
                l = mid;
            } else {
                h = mid;
            }
        }
        return (a + b * Math.pow(l, beta)) / (1 - s + s * h);
    }

    private static double cost(double a, double b, double beta, double s, double f) {
        return (a + b * Math.pow(f, beta)) / (1 - s + s * f);
    }

    private static double slope(double a, double b, double beta, double s, double f) {
        return beta * b * Math.pow(f, beta - 1) * (1 - s + s * f) - s * (a + b * Math.pow(f, beta));
    }

    /** Jobs that cost the same per unit of work: performance-only or not, cores, sensitivity and activity (rounded down). */
    record Group(boolean performanceOnly, int cores, double sensitivity, double activity) {
    }

    /** The operating points of one node type's CPU part, or of its GPU boards. */
    sealed interface TypePoints permits CpuPoints, BoardPoints {
        /** Nodes (or boards) of the type. */
        int nodes();

        /** The least one draws with nothing running, under any of the caps. */
        double idle();

        /** False for the host of a GPU node, where no CPU job runs (only its idle power counts). */
        boolean runsJobs();

        /** min over allowed points of (m + θ·I) / (i · v): joules per unit of work. */
        double cheapest(Group g, double theta);

        /** The least node-time (node-seconds, board-seconds) one unit of work can take: all cores (the board) at full speed. */
        double leastNodeTimePerWork();
    }

    /**
     * A CPU type's points: for each cap and each number of busy cores i, the power above idle at full frequency and the
     * range of frequencies the cap can leave: from that of compute-bound work (w = 1) to that of the least intense job's
     * (a node's mean intensity lies between). A job j is priced at its own intensity over that range: a node-step's
     * power above idle splits among its jobs as {@code (c_j / i) · (P(u, f, w_j) − I)} (the clock-scaled part by
     * {@code c_j · w_j}, the rest by cores), which sums to the node's; duty cycling only raises the price of idle time.
     */
    private record CpuPoints(NodeModel model, int nodes, int cores, double idle, double[][] fLow, double[][] fHigh,
                             boolean[] forPerformance, boolean runsJobs, Pieces pieces) implements TypePoints {
        static CpuPoints of(NodeModel m, int nodes, double perfCap, List<Double> lowerCaps, boolean runsJobs, double lowestIntensity,
                            boolean partlyBusy) {
            List<Double> caps = new ArrayList<>(List.of(m.capMaxWatts(), perfCap));
            caps.addAll(lowerCaps);
            double performance = m.clampCap(perfCap);
            double idle = Double.POSITIVE_INFINITY;
            for (double cap : caps) {
                idle = Math.min(idle, m.measuredPower(0, m.capFrequency(0, cap), cap));
            }
            double[][] fLow = new double[caps.size()][m.cores() + 1];
            double[][] fHigh = new double[caps.size()][m.cores() + 1];
            boolean[] forPerformance = new boolean[caps.size()];
            for (int c = 0; c < caps.size(); c++) {
                double cap = caps.get(c);
                forPerformance[c] = m.clampCap(cap) >= performance;
                for (int i = 1; i <= m.cores(); i++) {
                    double u = (double) i / m.cores();
                    fLow[c][i] = m.capFrequency(u, cap, 1);
                    fHigh[c][i] = m.capFrequency(u, cap, lowestIntensity);
                }
            }
            return new CpuPoints(m, nodes, m.cores(), idle, fLow, fHigh, forPerformance, runsJobs,
                    partlyBusy ? Pieces.of(m, caps, lowestIntensity) : null);
        }

        @Override
        public double leastNodeTimePerWork() {
            return 1.0 / cores;
        }

        @Override
        public double cheapest(Group g, double theta) {
            return pieces == null ? cheapestByRequests(g, theta) : cheapestByBusyCores(g, theta);
        }

        /**
         * Loads priced by busy cores B = Σ c·a (jobs partly busy): a node-step's power above idle splits among its jobs by
         * {@code c_j·a_j / B} (the clock-scaled part by {@code c_j·a_j·w_j}), its idle price λ by requested cores, at most
         * the node's. So job j pays at least {@code a_j·(P(B/C, f, w_j) − I) / (B·v) + λ / (C·v)} per unit of work, with
         * B anywhere from its own {@code c_j·a_j} to C. Over each piece of B the node's power above idle per busy core is
         * taken at its smaller end (it is monotone within a piece of the curve), the frequency over the range the cap
         * leaves anywhere in the piece, each of which only lowers the price.
         */
        private double cheapestByBusyCores(Group g, double theta) {
            double w = model.intensity(g.sensitivity());
            double s = g.sensitivity();
            double a = g.activity();
            double phi = model.frequencyShare();
            double own = g.cores() * a;
            double c0 = model.curve().idleWatts() - idle;
            double best = Double.POSITIVE_INFINITY;
            for (int p = 0; p < pieces.from.length; p++) {
                double hi = pieces.from[p] + pieces.width;
                if (hi < own) {
                    continue;
                }
                double lo = Math.max(pieces.from[p], own);
                double perBusyCore = Math.min(model.curve().dynamicWatts(lo / cores) / lo, model.curve().dynamicWatts(hi / cores) / hi);
                double numerator = a * c0 / hi + a * perBusyCore * (1 - phi) + theta * idle / cores;
                double scaled = a * perBusyCore * phi * w;
                for (int c = 0; c < forPerformance.length; c++) {
                    if (g.performanceOnly() && !forPerformance[c]) {
                        continue;
                    }
                    best = Math.min(best, minOver(numerator, scaled, model.beta(), s, pieces.fLow[c][p], pieces.fHigh[c][p]));
                }
            }
            return best;
        }

        /** Loads priced by requested cores: every job keeps its cores busy. */
        private double cheapestByRequests(Group g, double theta) {
            double w = model.intensity(g.sensitivity());
            double s = g.sensitivity();
            double phi = model.frequencyShare();
            double best = Double.POSITIVE_INFINITY;
            for (int i = g.cores(); i <= cores; i++) {
                double u = (double) i / cores;
                double dynamic = model.curve().dynamicWatts(u);
                // cost(f) = (a + b·f^β) / (i · (1 − s + s·f))
                double a = model.curve().idleWatts() - idle + dynamic * (1 - phi) + theta * idle;
                double b = dynamic * phi * w;
                for (int c = 0; c < fLow.length; c++) {
                    if (g.performanceOnly() && !forPerformance[c]) {
                        continue;
                    }
                    best = Math.min(best, minOver(a, b, model.beta(), s, fLow[c][i], fHigh[c][i]) / i);
                }
            }
            return best;
        }

    }

    /**
     * The busy-core pieces of a CPU type: each 10 % of its cores (a linear piece of a measured curve) cut into
     * {@link #LOAD_PIECES}, and for each cap and piece the frequencies a cap can leave a node loaded anywhere in it: from
     * compute-bound work at the piece's top to the least intense work at its bottom.
     */
    private record Pieces(double[] from, double width, double[][] fLow, double[][] fHigh) {
        static Pieces of(NodeModel m, List<Double> caps, double lowestIntensity) {
            int n = 10 * LOAD_PIECES;
            double width = (double) m.cores() / n;
            double[] from = new double[n];
            double[][] fLow = new double[caps.size()][n];
            double[][] fHigh = new double[caps.size()][n];
            for (int p = 0; p < n; p++) {
                from[p] = p * width;
                for (int c = 0; c < caps.size(); c++) {
                    fLow[c][p] = m.capFrequency((from[p] + width) / m.cores(), caps.get(c), 1);
                    fHigh[c][p] = m.capFrequency(from[p] / m.cores(), caps.get(c), lowestIntensity);
                }
            }
            return new Pieces(from, width, fLow, fHigh);
        }
    }

    /**
     * A GPU type's boards, each a one-core node: a busy board belongs to one job, so its clock under each limit is its
     * own job's (by its intensity), and a job's work per board-second is the type's throughput times its speed.
     */
    private record BoardPoints(GpuModel gpu, int nodes, double idle, double[] caps, boolean[] forPerformance) implements TypePoints {
        static BoardPoints of(GpuModel gpu, int boards, double perfCap, List<Double> lowerCaps) {
            List<Double> caps = new ArrayList<>(List.of(gpu.board().capMaxWatts(), perfCap));
            caps.addAll(lowerCaps);
            double performance = gpu.board().clampCap(perfCap);
            boolean[] forPerformance = new boolean[caps.size()];
            for (int c = 0; c < caps.size(); c++) {
                forPerformance[c] = gpu.board().clampCap(caps.get(c)) >= performance;
            }
            return new BoardPoints(gpu, boards, gpu.idleBoardPower(), caps.stream().mapToDouble(Double::doubleValue).toArray(),
                    forPerformance);
        }

        @Override
        public boolean runsJobs() {
            return true;
        }

        @Override
        public double leastNodeTimePerWork() {
            return 1.0 / gpu.throughput();
        }

        @Override
        public double cheapest(Group g, double theta) {
            double w = gpu.board().intensity(g.sensitivity());
            double best = Double.POSITIVE_INFINITY;
            for (int c = 0; c < caps.length; c++) {
                if (g.performanceOnly() && !forPerformance[c]) {
                    continue;
                }
                double speed = gpu.jobSpeed(1, g.sensitivity(), caps[c]);
                if (speed > 0) {
                    best = Math.min(best, (gpu.busyBoardPower(caps[c], w) - idle + theta * idle) / speed);
                }
            }
            return best;
        }
    }
}
