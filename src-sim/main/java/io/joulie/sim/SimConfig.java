package io.joulie.sim;

import io.joulie.api.text.Problems;
import io.joulie.planner.PlannerSetting;
import io.joulie.planner.PlannerSettings;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A validated run configuration, read from the {@link Params} table.
 *
 * @param nodeTypes    the kinds of node in the cluster (at least one)
 * @param typeShares   per type, its share of the nodes (summing to 1)
 * @param workload     the job generator (or trace)
 * @param nodes        simulated nodes
 * @param stepSeconds  physics time step
 * @param tickSeconds  planner interval
 * @param maxSeconds   hard stop
 * @param planner      the operator's planner settings (policy type set per baseline)
 * @param optimizerEvaluations runs of the twin the hindsight optimizer may spend
 * @param maxPerformanceSlowdown the hindsight optimum keeps performance-only jobs' mean completion time within this
 *                               multiple of all-performance's
 * @param interference γ of co-located CPU jobs ({@code cluster.interference}; 0: jobs do not slow each other)
 * @param score        how the twin's scheduler scores the nodes a job fits ({@code scheduler.score})
 * @param parking      parking of empty nodes ({@code parking.*}; off by default)
 */
public record SimConfig(List<NodeType> nodeTypes, List<Double> typeShares, WorkloadSpec workload, int nodes,
                        double stepSeconds, double tickSeconds, double maxSeconds, PlannerSettings planner,
                        int optimizerEvaluations, double maxPerformanceSlowdown, double interference, PlacementScore score,
                        ParkingConfig parking) {

    /** A configuration without parking. */
    public SimConfig(List<NodeType> nodeTypes, List<Double> typeShares, WorkloadSpec workload, int nodes, double stepSeconds,
                     double tickSeconds, double maxSeconds, PlannerSettings planner, int optimizerEvaluations,
                     double maxPerformanceSlowdown, double interference, PlacementScore score) {
        this(nodeTypes, typeShares, workload, nodes, stepSeconds, tickSeconds, maxSeconds, planner, optimizerEvaluations,
                maxPerformanceSlowdown, interference, score, ParkingConfig.OFF);
    }

    /** A configuration whose scheduler scores least-allocated. */
    public SimConfig(List<NodeType> nodeTypes, List<Double> typeShares, WorkloadSpec workload, int nodes, double stepSeconds,
                     double tickSeconds, double maxSeconds, PlannerSettings planner, int optimizerEvaluations,
                     double maxPerformanceSlowdown, double interference) {
        this(nodeTypes, typeShares, workload, nodes, stepSeconds, tickSeconds, maxSeconds, planner, optimizerEvaluations,
                maxPerformanceSlowdown, interference, PlacementScore.LEAST_ALLOCATED);
    }

    /** A configuration whose co-located jobs do not slow each other. */
    public SimConfig(List<NodeType> nodeTypes, List<Double> typeShares, WorkloadSpec workload, int nodes, double stepSeconds,
                     double tickSeconds, double maxSeconds, PlannerSettings planner, int optimizerEvaluations,
                     double maxPerformanceSlowdown) {
        this(nodeTypes, typeShares, workload, nodes, stepSeconds, tickSeconds, maxSeconds, planner, optimizerEvaluations,
                maxPerformanceSlowdown, 0);
    }

    public SimConfig {
        nodeTypes = List.copyOf(nodeTypes);
        typeShares = List.copyOf(typeShares);
        require(!nodeTypes.isEmpty() && nodeTypes.size() == typeShares.size(), "every node type needs a share");
        require(typeShares.stream().allMatch(x -> x > 0) && Math.abs(typeShares.stream().mapToDouble(Double::doubleValue).sum() - 1) < 1e-9,
                "cluster.types: the shares must be positive and add up to 1, got " + typeShares);
        require(nodeTypes.stream().map(NodeType::name).distinct().count() == nodeTypes.size(), "cluster.types names a type twice");
        require(nodes >= 1, "cluster.nodes must be at least 1, got " + nodes);
        require(stepSeconds > 0 && Double.isFinite(stepSeconds), "sim.stepSeconds must be > 0, got " + stepSeconds);
        require(tickSeconds >= stepSeconds, "sim.tickSeconds must be ≥ sim.stepSeconds, got " + tickSeconds);
        require(maxSeconds > 0, "sim.maxSeconds must be > 0, got " + maxSeconds);
        require(optimizerEvaluations >= 1, "optimizer.evaluations must be ≥ 1, got " + optimizerEvaluations);
        require(maxPerformanceSlowdown >= 1, "optimizer.maxPerformanceSlowdown must be ≥ 1, got " + maxPerformanceSlowdown);
        require(interference >= 0 && interference < 1, "cluster.interference must be in [0, 1), got " + interference);
        require(score != null, "scheduler.score is required");
        require(parking != null, "parking is required");
    }

    public static SimConfig defaults() {
        return of(Map.of());
    }

    /** Defaults overlaid with {@code overrides} ({@code key → value}). */
    public static SimConfig of(Map<String, String> overrides) {
        Reader r = new Reader(Params.resolve(overrides));
        NodeModel model = new NodeModel(r.i("node.cores"),
                new LoadCurve.Parametric(r.d("node.idleWatts"), r.d("node.maxWatts"), r.d("node.alpha")),
                r.d("node.beta"), r.d("node.frequencyShare"), r.d("node.fminMHz"), r.d("node.fmaxMHz"), r.d("node.floorWatts"),
                r.d("node.capMinWatts"), r.d("node.capMaxWatts"), r.d("node.capToleranceWatts"),
                r.d("node.throttleTauSeconds"));
        List<NodeType> types = new ArrayList<>();
        List<Double> shares = new ArrayList<>();
        NodeCatalog.parse(r.s("cluster.types"), new NodeType(NodeCatalog.MODEL, model), r.bool("cluster.cStates"), types, shares);
        NodeCatalog.overrideThroughput(r.s("cluster.gpuThroughput"), types);
        WorkloadSpec workload = new WorkloadSpec(r.i("workload.jobs"), r.d("workload.horizonSeconds"),
                r.d("workload.meanInterarrivalSeconds"), r.d("workload.diurnalAmplitude"), r.i("workload.coresMin"),
                r.i("workload.coresMax"), r.d("workload.workMin"), r.d("workload.workMax"),
                r.d("workload.sensitivityMin"), r.d("workload.sensitivityMax"), r.d("workload.memoryBoundShare"),
                r.d("workload.memoryBoundSensitivityMin"), r.d("workload.memoryBoundSensitivityMax"), r.d("workload.declaredShare"),
                r.d("workload.performanceShare"), r.d("workload.ecoShare"), r.d("workload.gpuShare"), r.i("workload.gpusMin"),
                r.i("workload.gpusMax"), r.d("workload.gpuWorkMin"), r.d("workload.gpuWorkMax"), r.d("workload.gpuSensitivityMin"),
                r.d("workload.gpuSensitivityMax"), r.l("workload.seed"), r.s("workload.trace"),
                r.d("workload.activityMin"), r.d("workload.activityMax"));
        double tick = r.d("sim.tickSeconds");
        // the planner.* parameters: the operator's settings table, read and checked as the operator reads its own
        Problems problems = new Problems();
        PlannerSettings planner = PlannerSetting.read(PlannerSetting.Source.SIMULATOR,
                        s -> r.values().get(s.simulatorKey().orElseThrow()), s -> s.simulatorKey().orElseThrow(), problems)
                .settings().map(s -> s.toBuilder().reconcileInterval(Duration.ofMillis(Math.round(tick * 1000))).build())
                .orElse(null);
        if (planner == null) {
            throw new IllegalArgumentException(String.join("; ", problems.lines()));
        }
        return new SimConfig(types, shares, workload, r.i("cluster.nodes"), r.d("sim.stepSeconds"), tick,
                r.d("sim.maxSeconds"), planner, r.i("optimizer.evaluations"),
                r.d("optimizer.maxPerformanceSlowdown"), r.d("cluster.interference"), PlacementScore.of(r.s("scheduler.score")),
                new ParkingConfig(r.bool("parking.enabled"), r.d("parking.idleSeconds"), r.d("parking.warmFraction"),
                        r.d("parking.windowSeconds"), r.i("parking.minNodes"), r.d("parking.bootSeconds"),
                        r.d("parking.offWatts"), r.d("parking.wakeJoules")));
    }

    /**
     * The type of every node, by index: the types interleaved in proportion to their shares (node i takes the type
     * furthest behind its share of the first i + 1 nodes; ties to the first listed), so that any prefix of the
     * node list mixes the types as the whole cluster does.
     */
    public List<Integer> typeOfEachNode() {
        int[] count = new int[nodeTypes.size()];
        List<Integer> types = new ArrayList<>(nodes);
        for (int i = 0; i < nodes; i++) {
            int best = 0;
            double behind = Double.NEGATIVE_INFINITY;
            for (int t = 0; t < count.length; t++) {
                double gap = typeShares.get(t) * (i + 1) - count[t];
                if (gap > behind + 1e-12) {
                    behind = gap;
                    best = t;
                }
            }
            count[best]++;
            types.add(best);
        }
        return types;
    }

    /** An {@link IllegalArgumentException} with this message unless {@code ok}. */
    public static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    private record Reader(Map<String, String> values) {
        String s(String key) {
            return values.get(key).trim();
        }

        double d(String key) {
            try {
                double v = Double.parseDouble(s(key));
                require(Double.isFinite(v), key + " must be a finite number, got '" + s(key) + "'");
                return v;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key + " must be a number, got '" + s(key) + "'", e);
            }
        }

        int i(String key) {
            try {
                return Integer.parseInt(s(key));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key + " must be an integer, got '" + s(key) + "'", e);
            }
        }

        boolean bool(String key) {
            return switch (s(key)) {
                case "true" -> true;
                case "false" -> false;
                default -> throw new IllegalArgumentException(key + " must be true or false, got '" + s(key) + "'");
            };
        }

        long l(String key) {
            try {
                return Long.parseLong(s(key));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key + " must be an integer, got '" + s(key) + "'", e);
            }
        }
    }
}
