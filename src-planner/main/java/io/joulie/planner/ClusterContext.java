package io.joulie.planner;

import java.time.Instant;
import java.util.List;

/**
 * One tick's view of the cluster: everything a policy may look at.
 *
 * @param now                    the tick's instant
 * @param nodes                  managed nodes (reserved ones already excluded), sorted by name
 * @param clusterPerformancePods performance-only pods cluster-wide, scheduled or pending, not terminating
 *                               and not Succeeded/Failed
 * @param released               nodes that still carry Joulie state (a NodePowerProfile or the label) but are
 *                               no longer managed (selector no longer matches, reserved, excluded, or gone)
 * @param excluded               nodes the selector picks that are left out of planning, with the reason
 *                               (e.g. their agent found no way to cap power); sorted by name
 * @param telemetry              this tick's measurements ({@link Telemetry#DISABLED} when no source is configured)
 * @param demand                 CPU requested cluster-wide by the active pods the policies size pools for
 * @param gpuDemand              GPU boards requested cluster-wide by the same pods ({@link GpuDemand#UNKNOWN} when not
 *                               counted: the policies then choose eco nodes as if no node held boards)
 */
public record ClusterContext(Instant now, List<ManagedNode> nodes, long clusterPerformancePods, List<String> released,
                             List<Exclusion> excluded, Telemetry telemetry, CpuDemand demand, GpuDemand gpuDemand) {

    public ClusterContext {
        nodes = List.copyOf(nodes);
        released = List.copyOf(released);
        excluded = List.copyOf(excluded);
        telemetry = telemetry == null ? Telemetry.DISABLED : telemetry;
        demand = demand == null ? CpuDemand.UNKNOWN : demand;
        gpuDemand = gpuDemand == null ? GpuDemand.UNKNOWN : gpuDemand;
    }

    /** A context whose GPU demand is not known: the policies choose eco nodes without regard to GPU boards. */
    public ClusterContext(Instant now, List<ManagedNode> nodes, long clusterPerformancePods, List<String> released,
                          List<Exclusion> excluded, Telemetry telemetry, CpuDemand demand) {
        this(now, nodes, clusterPerformancePods, released, excluded, telemetry, demand, GpuDemand.UNKNOWN);
    }

    public ClusterContext(Instant now, List<ManagedNode> nodes, long clusterPerformancePods, List<String> released,
                          List<Exclusion> excluded, Telemetry telemetry) {
        this(now, nodes, clusterPerformancePods, released, excluded, telemetry, CpuDemand.UNKNOWN);
    }

    public ClusterContext(Instant now, List<ManagedNode> nodes, long clusterPerformancePods, List<String> released,
                          List<Exclusion> excluded) {
        this(now, nodes, clusterPerformancePods, released, excluded, Telemetry.DISABLED);
    }

    /**
     * CPU cores requested by active pods (scheduled or pending, not terminating, not finished), cluster-wide.
     *
     * @param performanceCores performance-only pods'; negative when unknown
     * @param ecoOnlyCores     eco-only pods' (they run on eco nodes only); negative when unknown
     * @param declaredEcoCores pods' that may run anywhere and declare {@code joulie.io/workload-class: eco}; negative
     *                         when unknown
     */
    public record CpuDemand(double performanceCores, double ecoOnlyCores, double declaredEcoCores) {
        public static final CpuDemand UNKNOWN = new CpuDemand(-1, -1, -1);

        public boolean known() {
            return performanceCores >= 0 && ecoOnlyCores >= 0 && declaredEcoCores >= 0;
        }
    }

    /**
     * GPU boards ({@code nvidia.com/gpu}; AMD boards are not capped and not counted, decision 201) requested by active
     * pods, cluster-wide, by class, as {@link CpuDemand} counts cores.
     *
     * @param performanceGpus performance-only pods'; negative when unknown
     * @param ecoOnlyGpus     eco-only pods'; negative when unknown
     * @param declaredEcoGpus pods' that may run anywhere and declare {@code joulie.io/workload-class: eco}; negative
     *                        when unknown
     */
    public record GpuDemand(double performanceGpus, double ecoOnlyGpus, double declaredEcoGpus) {
        public static final GpuDemand UNKNOWN = new GpuDemand(-1, -1, -1);

        public boolean known() {
            return performanceGpus >= 0 && ecoOnlyGpus >= 0 && declaredEcoGpus >= 0;
        }
    }

    public ClusterContext(Instant now, List<ManagedNode> nodes, long clusterPerformancePods, List<String> released) {
        this(now, nodes, clusterPerformancePods, released, List.of());
    }

    public ClusterContext(Instant now, List<ManagedNode> nodes, long clusterPerformancePods) {
        this(now, nodes, clusterPerformancePods, List.of());
    }

    /** A selected node left out of planning. */
    public record Exclusion(String node, String reason, String message) {
    }

    /** Nodes that take part in planning: not cordoned. */
    public List<ManagedNode> eligible() {
        return nodes.stream().filter(n -> !n.cordoned()).toList();
    }
}
