package io.joulie.planner;

import io.joulie.api.v1alpha1.PowerState;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A managed node as the planner sees it.
 *
 * @param name             node name
 * @param labels           node labels (zone, rack, ... for policies that want them)
 * @param cordoned         unschedulable: frozen in its state and not counted
 * @param state            current transition state (from the cluster: NodePowerProfile status or label)
 * @param since            when it entered that state
 * @param performancePods  active performance-only pods on the node as {@code namespace/name}, sorted
 * @param cpuCores         allocatable CPU cores ({@code status.allocatable.cpu}); 0 when unknown
 * @param power            its power hardware, as far as known (caps in percent resolve against it)
 */
public record ManagedNode(String name, Map<String, String> labels, boolean cordoned, PowerState state,
                          Instant since, List<String> performancePods, double cpuCores, NodePower power) {

    public ManagedNode {
        labels = Map.copyOf(labels);
        performancePods = List.copyOf(performancePods);
    }

    /** A node whose CPU capacity and power hardware are not known. */
    public ManagedNode(String name, Map<String, String> labels, boolean cordoned, PowerState state, Instant since,
                       List<String> performancePods) {
        this(name, labels, cordoned, state, since, performancePods, 0, NodePower.UNKNOWN);
    }

    /** A node whose power hardware is not known. */
    public ManagedNode(String name, Map<String, String> labels, boolean cordoned, PowerState state, Instant since,
                       List<String> performancePods, double cpuCores) {
        this(name, labels, cordoned, state, since, performancePods, cpuCores, NodePower.UNKNOWN);
    }

    /** A node whose CPU capacity is not known. */
    public ManagedNode(String name, Map<String, String> labels, boolean cordoned, PowerState state, Instant since,
                       List<String> performancePods, NodePower power) {
        this(name, labels, cordoned, state, since, performancePods, 0, power);
    }

    public boolean hasPerformancePods() {
        return !performancePods.isEmpty();
    }
}
