package io.joulie.sim;

import io.joulie.planner.PlannerSetting;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every number of the twin, by name, with its default and meaning: the single table that the command line
 * ({@code key=value} arguments), the scenarios and docs/simulation.md ({@code java -jar joulie-sim.jar params})
 * draw on. Values are validated when read by {@link SimConfig}; an unknown key is an error that lists the
 * known ones.
 */
public final class Params {
    /** One parameter: default value (as text) and what it means. */
    public record Param(String key, String defaultValue, String description) {
    }

    private static final Map<String, Param> TABLE = new LinkedHashMap<>();

    static {
        def("node.cores", "16", "CPU cores per node; u = requested cores of running jobs / cores");
        def("node.idleWatts", "80", "power at u = 0");
        def("node.maxWatts", "420", "power at u = 1, f = 1 (pmax)");
        def("node.alpha", "1.15", "utilisation exponent α in P = idle + (pmax − idle)·u^α·((1 − φ) + φ·f^β)");
        def("node.beta", "1.35", "frequency exponent β");
        def("node.frequencyShare", "1", "φ: share of the power above idle that scales with frequency (the rest follows the load only)");
        def("node.fminMHz", "1200", "lowest frequency: f ≥ fmin/fmax");
        def("node.fmaxMHz", "3200", "highest frequency (f = 1)");
        def("node.floorWatts", "20", "measured power never reads below this");
        def("node.capMinWatts", "80", "a cap is clamped to at least this");
        def("node.capMaxWatts", "5000", "a cap is clamped to at most this");
        def("node.capToleranceWatts", "5", "measured power never exceeds cap + this");
        def("node.throttleTauSeconds", "0.5", "time constant of the DVFS throttle ramp");
        def("cluster.nodes", "5", "number of simulated nodes");
        def("cluster.cStates", "true", "false: the calibrated types draw their idle power without C-states (+25 % at idle, fading to 0 at full load)");
        def("cluster.types", "", "node types and their shares, e.g. dell-r640:0.6,dell-r940:0.4 (empty: one type, "
                + "'model', from the node.* parameters; docs/simulation.md lists the types, GPU servers among them)");
        def("cluster.gpuThroughput", "", "GPU board throughput by type, replacing the catalog's (A100 SXM 1, H100 SXM 2), "
                + "e.g. gpu-h100x8=3.2 (empty: the catalog's)");
        def("cluster.interference", "0", "γ: a CPU job runs 1 − γ·(the other jobs' cores / the node's cores) as fast as alone "
                + "(contention for caches and memory bandwidth); 0 assumes co-located jobs do not slow each other");
        def("scheduler.score", "least-allocated", "how the twin's scheduler scores the nodes a job fits: least-allocated "
                + "(kube-scheduler's default, the largest share of free cores) or efficient-load (the profile Joulie ships: "
                + "NodeResourcesFit RequestedToCapacityRatio on CPU peaking at " + io.joulie.planner.EfficientLoadScore.TARGET_PERCENT
                + " % of a node's cores, which fills a node up to the peak before opening another); ties to the lowest node index, A included");
        def("parking.enabled", "false", "true: at each planner tick, nodes empty for parking.idleSeconds are cordoned and "
                + "powered off, and woken when pending jobs fit no powered node or the warm pool falls short (ParkingPolicy)");
        def("parking.idleSeconds", "900", "a node must have held no pod this long before it may be parked");
        def("parking.warmFraction", "0.4", "warm pool of free cores on powered nodes: this share of the peak requested cores "
                + "over parking.windowSeconds, plus the largest job's cores");
        def("parking.windowSeconds", "3600", "window of the peak of requested cores (running and pending jobs)");
        def("parking.minNodes", "1", "never fewer powered (on or booting) nodes than this");
        def("parking.bootSeconds", "300", "a woken node draws its idle power this long and takes no pod before it is on");
        def("parking.offWatts", "5", "power of a parked (off) node: BMC standby, an assumption");
        def("parking.wakeJoules", "0", "energy of a wake on top of the idle power drawn while booting (0: none modelled)");
        def("workload.jobs", "300", "jobs to generate (0: no limit, arrivals until workload.horizonSeconds)");
        def("workload.horizonSeconds", "0", "last arrival time (0: no limit, workload.jobs jobs)");
        def("workload.meanInterarrivalSeconds", "5", "mean of the exponential inter-arrival time");
        def("workload.diurnalAmplitude", "0", "arrival rate × (1 + A·sin(2π(t/86400 − 1/4))): 0 = constant rate");
        def("workload.coresMin", "1", "smallest requested cores of a job (uniform)");
        def("workload.coresMax", "8", "largest requested cores of a job (uniform)");
        def("workload.workMin", "600", "smallest job work in core-seconds (uniform)");
        def("workload.workMax", "3600", "largest job work in core-seconds (uniform)");
        def("workload.sensitivityMin", "0.8", "smallest CPU sensitivity s (uniform) of compute-bound jobs");
        def("workload.sensitivityMax", "1.0", "largest CPU sensitivity s (uniform) of compute-bound jobs");
        def("workload.memoryBoundShare", "0", "share of memory-bound jobs, whose sensitivity is drawn from the memory-bound range");
        def("workload.memoryBoundSensitivityMin", "0.1", "smallest CPU sensitivity of memory-bound jobs (uniform)");
        def("workload.memoryBoundSensitivityMax", "0.6", "largest CPU sensitivity of memory-bound jobs (uniform)");
        def("workload.declaredShare", "0", "share of unconstrained memory-bound jobs whose pods declare joulie.io/workload-class: eco "
                + "(with a preferred node affinity for eco nodes)");
        def("workload.performanceShare", "0.30", "share of performance-only jobs (nodeSelector performance)");
        def("workload.ecoShare", "0", "share of eco-only jobs (nodeSelector eco); the rest is unconstrained");
        def("workload.gpuShare", "0", "share of GPU jobs: they request GPU boards (nvidia.com/gpu), run only on GPU nodes and "
                + "progress by their boards' clock");
        def("workload.gpusMin", "1", "fewest GPU boards of a GPU job (uniform)");
        def("workload.gpusMax", "4", "most GPU boards of a GPU job (uniform)");
        def("workload.gpuWorkMin", "1800", "smallest GPU job work in board-seconds at the highest clock (uniform)");
        def("workload.gpuWorkMax", "28800", "largest GPU job work in board-seconds (uniform)");
        def("workload.gpuSensitivityMin", "0.3", "smallest sensitivity of GPU jobs to their boards' clock (uniform)");
        def("workload.gpuSensitivityMax", "1.0", "largest sensitivity of GPU jobs to their boards' clock (uniform)");
        def("workload.activityMin", "1", "smallest activity of a job (uniform): the share of its requested cores it keeps busy, "
                + "the load its cores put on the node's SPECpower curve (1: requests fully used)");
        def("workload.activityMax", "1", "largest activity of a job (uniform)");
        def("workload.seed", "42", "random seed of the generator");
        def("workload.trace", "", "JSON-lines trace file replacing the generator (empty: generate)");
        def("sim.stepSeconds", "1", "physics time step");
        def("sim.tickSeconds", "60", "planner tick: the operator's spec.policy.reconcileInterval");
        def("sim.maxSeconds", "1209600", "stop even if jobs remain (14 days)");
        def("optimizer.evaluations", "200", "runs of the twin the hindsight optimizer may spend searching");
        def("optimizer.maxPerformanceSlowdown", "1.05", "the optimum must keep performance-only jobs' mean completion time "
                + "within this multiple of A's (the policies' service level)");
        // the operator's planner settings that the twin exposes: their rows in the settings table
        for (PlannerSetting<?> s : PlannerSetting.ALL) {
            s.simulatorKey().ifPresent(key -> def(key, s.simulatorDefault().orElseThrow(), s.meaning()));
        }
    }

    private Params() {
    }

    private static void def(String key, String value, String description) {
        TABLE.put(key, new Param(key, value, description));
    }

    /** The table, in documentation order. */
    public static Map<String, Param> table() {
        return Collections.unmodifiableMap(TABLE);
    }

    /** The defaults overlaid with {@code overrides}; an unknown key is rejected. */
    public static Map<String, String> resolve(Map<String, String> overrides) {
        Map<String, String> values = new LinkedHashMap<>();
        TABLE.values().forEach(p -> values.put(p.key(), p.defaultValue()));
        overrides.forEach((k, v) -> {
            if (!TABLE.containsKey(k)) {
                throw new IllegalArgumentException("unknown parameter '" + k + "'; known: " + String.join(", ", TABLE.keySet()));
            }
            values.put(k, v);
        });
        return values;
    }
}
