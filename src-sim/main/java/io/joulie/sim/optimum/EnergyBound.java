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
 */
public record EnergyBound(double kWh, double gpuKWh, double makespanLowerBound, double theta) {
    /** Sensitivities are rounded down to this grid (a lower sensitivity never costs more: the bound stays valid). */
    static final int SENSITIVITY_STEPS = 1000;

    /** The bound for the configured performance and eco caps, those by node type, and no cap. */
    public static EnergyBound of(SimConfig config, List<JobSpec> jobs) {
        List<CpuPower> eco = new ArrayList<>(List.of(config.planner().caps(Profile.ECO).cpu()));
        config.planner().ecoCapWattsByType().values().forEach(w -> eco.add(CpuPower.watts(w)));
        return of(config, jobs, eco);
    }

    /** A bound's value in joules, and the θ that gave it. */
    private record Best(double joules, double theta) {
    }

    /**
     * The bound when nodes may also run under any of {@code lowerCaps} (for jobs that are not performance-only), each
     * resolved on each node type's model (a percent of its highest cap).
     */
    public static EnergyBound of(SimConfig config, List<JobSpec> jobs, List<CpuPower> lowerCaps) {
        SimConfig.require(!jobs.isEmpty(), "no jobs, no bound");
        List<NodeType> types = config.nodeTypes();
        int[] count = new int[types.size()];
        config.typeOfEachNode().forEach(t -> count[t]++);
        ProfileCaps perf = config.planner().caps(Profile.PERFORMANCE);
        GpuPower ecoGpu = config.planner().caps(Profile.ECO).gpu();
        List<TypePoints> points = new ArrayList<>();
        List<TypePoints> boards = new ArrayList<>();
        long cpuCores = 0;
        long totalBoards = 0;
        for (int k = 0; k < types.size(); k++) {
            if (count[k] > 0) {
                NodeType type = types.get(k);
                NodeModel m = type.model();
                points.add(TypePoints.of(m, count[k], m.capWatts(perf.cpu()), lowerCaps.stream().map(m::capWatts).toList(),
                        !type.hasGpus()));
                if (type.hasGpus()) {
                    GpuModel gpu = type.gpu();
                    boards.add(TypePoints.of(gpu.board(), count[k] * gpu.boards(), gpu.capWatts(perf.gpu()),
                            List.of(gpu.capWatts(ecoGpu), gpu.defaultLimitWatts()), true));
                    totalBoards += (long) count[k] * gpu.boards();
                } else {
                    cpuCores += (long) count[k] * m.cores();
                }
            }
        }
        double tLb = makespanLowerBound(jobs, cpuCores, totalBoards);
        Map<Group, Double> work = new HashMap<>();
        Map<Group, Double> boardWork = new HashMap<>();
        for (JobSpec j : jobs) {
            // a GPU job's work is priced per board: a one-"core" group of its boards' work
            Group g = new Group(j.podClass() == PodClass.PERFORMANCE, j.usesGpus() ? 1 : j.cores(),
                    Math.floor(j.sensitivity() * SENSITIVITY_STEPS) / SENSITIVITY_STEPS);
            (j.usesGpus() ? boardWork : work).merge(g, j.work(), Double::sum);
        }
        Best cpu = maximize(points, new ArrayList<>(work.entrySet()), tLb);
        Best gpu = boards.isEmpty() ? new Best(0, 0) : maximize(boards, new ArrayList<>(boardWork.entrySet()), tLb);
        return new EnergyBound((cpu.joules() + gpu.joules()) / 3.6e6, gpu.joules() / 3.6e6, tLb, cpu.theta());
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
     * nodes without GPUs at full speed, nor the GPU work by every board.
     */
    static double makespanLowerBound(List<JobSpec> jobs, long cpuCores, long boards) {
        double t = 0;
        double later = 0;
        double laterOnBoards = 0;
        List<JobSpec> byArrival = jobs.stream().sorted(java.util.Comparator.comparingDouble(JobSpec::arrival)).toList();
        for (int i = byArrival.size() - 1; i >= 0; i--) {
            JobSpec j = byArrival.get(i);
            if (j.usesGpus()) {
                t = Math.max(t, j.arrival() + j.work() / j.gpus());
                laterOnBoards += j.work();
                t = Math.max(t, j.arrival() + laterOnBoards / boards);
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
            e += (1 - theta) * t.nodes * t.idle * tLb;
        }
        for (Map.Entry<Group, Double> g : groups) {
            double cheapest = Double.POSITIVE_INFINITY;
            for (TypePoints t : types) {
                if (t.runsJobs) {
                    cheapest = Math.min(cheapest, t.cheapest(g.getKey(), theta));
                }
            }
            e += g.getValue() * cheapest;
        }
        return e;
    }

    /** Jobs that cost the same per unit of work: performance-only or not, cores, sensitivity (rounded down). */
    private record Group(boolean performanceOnly, int cores, double sensitivity) {
    }

    /**
     * The operating points of one node type (or of its GPU boards): for each cap and each number of busy cores i, the
     * frequency and the measured power above idle; {@code runsJobs} false for the host of a GPU node, where no CPU job
     * runs (only its idle power counts).
     */
    private record TypePoints(int nodes, int cores, double idle, double[][] f, double[][] duty, double[][] dynamic,
                              boolean[] forPerformance, boolean runsJobs) {
        static TypePoints of(NodeModel m, int nodes, double perfCap, List<Double> lowerCaps, boolean runsJobs) {
            List<Double> caps = new ArrayList<>(List.of(m.capMaxWatts(), perfCap));
            caps.addAll(lowerCaps);
            double performance = m.clampCap(perfCap);
            // the least a node of this type can draw with nothing running, under any of the caps
            double idle = Double.POSITIVE_INFINITY;
            for (double cap : caps) {
                idle = Math.min(idle, m.measuredPower(0, m.capFrequency(0, cap), cap));
            }
            double[][] f = new double[caps.size()][m.cores() + 1];
            double[][] duty = new double[caps.size()][m.cores() + 1];
            double[][] dynamic = new double[caps.size()][m.cores() + 1];
            boolean[] forPerformance = new boolean[caps.size()];
            for (int c = 0; c < caps.size(); c++) {
                double cap = caps.get(c);
                forPerformance[c] = m.clampCap(cap) >= performance;
                for (int i = 1; i <= m.cores(); i++) {
                    double u = (double) i / m.cores();
                    f[c][i] = m.capFrequency(u, cap);
                    duty[c][i] = m.duty(u, f[c][i], cap);
                    dynamic[c][i] = m.measuredPower(u, f[c][i], cap) - idle;
                }
            }
            return new TypePoints(nodes, m.cores(), idle, f, duty, dynamic, forPerformance, runsJobs);
        }

        /** min over allowed points of (m + θ·I) / (i · v(f)): joules per unit of work. */
        double cheapest(Group g, double theta) {
            double best = Double.POSITIVE_INFINITY;
            for (int c = 0; c < f.length; c++) {
                if (g.performanceOnly() && !forPerformance[c]) {
                    continue;
                }
                for (int i = g.cores(); i <= cores; i++) {
                    double perCore = NodeModel.jobSpeed(1, g.sensitivity(), f[c][i]) * duty[c][i];
                    if (perCore > 0) {
                        best = Math.min(best, (dynamic[c][i] + theta * idle) / (i * perCore));
                    }
                }
            }
            return best;
        }
    }
}
