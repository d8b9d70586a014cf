package io.joulie.sim;

import io.joulie.api.text.Problems;
import io.joulie.planner.PlannerSetting;
import io.joulie.planner.PlannerSettings;

import java.time.Duration;
import java.util.Map;

/**
 * A validated run configuration, read from the {@link Params} table.
 *
 * @param node         the node power model
 * @param workload     the job generator (or trace)
 * @param nodes        simulated nodes
 * @param stepSeconds  physics time step
 * @param tickSeconds  planner interval
 * @param maxSeconds   hard stop
 * @param planner      the operator's planner settings (policy type set per baseline)
 */
public record SimConfig(NodeModel node, WorkloadSpec workload, int nodes, double stepSeconds, double tickSeconds,
                        double maxSeconds, PlannerSettings planner) {

    public SimConfig {
        require(nodes >= 1, "cluster.nodes must be at least 1, got " + nodes);
        require(stepSeconds > 0 && Double.isFinite(stepSeconds), "sim.stepSeconds must be > 0, got " + stepSeconds);
        require(tickSeconds >= stepSeconds, "sim.tickSeconds must be ≥ sim.stepSeconds, got " + tickSeconds);
        require(maxSeconds > 0, "sim.maxSeconds must be > 0, got " + maxSeconds);
    }

    public static SimConfig defaults() {
        return of(Map.of());
    }

    /** Defaults overlaid with {@code overrides} ({@code key → value}). */
    public static SimConfig of(Map<String, String> overrides) {
        Reader r = new Reader(Params.resolve(overrides));
        NodeModel node = new NodeModel(r.i("node.cores"), r.d("node.idleWatts"), r.d("node.maxWatts"),
                r.d("node.alpha"), r.d("node.beta"), r.d("node.fminMHz"), r.d("node.fmaxMHz"), r.d("node.floorWatts"),
                r.d("node.capMinWatts"), r.d("node.capMaxWatts"), r.d("node.capToleranceWatts"),
                r.d("node.throttleTauSeconds"));
        WorkloadSpec workload = new WorkloadSpec(r.i("workload.jobs"), r.d("workload.horizonSeconds"),
                r.d("workload.meanInterarrivalSeconds"), r.d("workload.diurnalAmplitude"), r.i("workload.coresMin"),
                r.i("workload.coresMax"), r.d("workload.workMin"), r.d("workload.workMax"),
                r.d("workload.sensitivityMin"), r.d("workload.sensitivityMax"), r.d("workload.performanceShare"),
                r.d("workload.ecoShare"), r.l("workload.seed"), r.s("workload.trace"));
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
        return new SimConfig(node, workload, r.i("cluster.nodes"), r.d("sim.stepSeconds"), tick,
                r.d("sim.maxSeconds"), planner);
    }

    static void require(boolean ok, String message) {
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

        long l(String key) {
            try {
                return Long.parseLong(s(key));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key + " must be an integer, got '" + s(key) + "'", e);
            }
        }
    }
}
