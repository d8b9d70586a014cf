package io.joulie.operator.planner;

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
 *                               no longer managed (selector no longer matches, reserved, or gone)
 * @param telemetry              this tick's measurements ({@link Telemetry#DISABLED} when no source is configured)
 */
public record ClusterContext(Instant now, List<ManagedNode> nodes, long clusterPerformancePods, List<String> released,
                             Telemetry telemetry) {

    public ClusterContext {
        nodes = List.copyOf(nodes);
        released = List.copyOf(released);
        telemetry = telemetry == null ? Telemetry.DISABLED : telemetry;
    }

    public ClusterContext(Instant now, List<ManagedNode> nodes, long clusterPerformancePods, List<String> released) {
        this(now, nodes, clusterPerformancePods, released, Telemetry.DISABLED);
    }

    public ClusterContext(Instant now, List<ManagedNode> nodes, long clusterPerformancePods) {
        this(now, nodes, clusterPerformancePods, List.of());
    }

    /** Nodes that take part in planning: not cordoned. */
    public List<ManagedNode> eligible() {
        return nodes.stream().filter(n -> !n.cordoned()).toList();
    }
}
