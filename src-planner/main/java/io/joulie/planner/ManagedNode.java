package io.joulie.planner;

import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A managed node as the planner sees it.
 *
 * @param name              node name
 * @param labels            node labels (zone, rack, ... for policies that want them)
 * @param cordoned          unschedulable: frozen in its state and not counted
 * @param state             current transition state (from the cluster: NodePowerProfile status or label)
 * @param since             when it entered that state
 * @param performancePods   active performance-only pods on the node as {@code namespace/name}, sorted
 * @param cpuCores          allocatable CPU cores ({@code status.allocatable.cpu}); 0 when unknown
 * @param power             its power hardware, as far as known (caps in percent resolve against it)
 * @param lastPerformancePod when the node's last performance-only pod left it (or when the operator began to watch,
 *                          if none left since; null when not known at all)
 * @param cap               what its NodePowerProfile asks for and what its agent reported
 * @param forcedPods        performance-only pods escalation force left under the eco cap (NodePowerProfile status)
 * @param reason            the reason its NodePowerProfile status gives now ("" when none)
 * @param stateSeen         when this replica first saw the node in its current state, on its own clock; null when
 *                          unknown. {@code since} is written by whichever replica made the move, on that replica's clock:
 *                          the guard measures the settle time and the downgrade timeout from the later of the two, so
 *                          that a new leader whose clock runs ahead of the old one's never commits or forces early
 */
public record ManagedNode(String name, Map<String, String> labels, boolean cordoned, PowerState state,
                          Instant since, List<String> performancePods, double cpuCores, NodePower power,
                          Instant lastPerformancePod, NodeCap cap, List<String> forcedPods, String reason,
                          Instant stateSeen) {

    public ManagedNode {
        labels = Map.copyOf(labels);
        performancePods = List.copyOf(performancePods);
        forcedPods = List.copyOf(forcedPods);
        power = power == null ? NodePower.UNKNOWN : power;
        cap = cap == null ? NodeCap.NONE : cap;
        reason = reason == null ? "" : reason;
    }

    /** A node whose state this replica has no sighting of its own for ({@code stateSeen} unknown). */
    public ManagedNode(String name, Map<String, String> labels, boolean cordoned, PowerState state, Instant since,
                       List<String> performancePods, double cpuCores, NodePower power, Instant lastPerformancePod, NodeCap cap,
                       List<String> forcedPods, String reason) {
        this(name, labels, cordoned, state, since, performancePods, cpuCores, power, lastPerformancePod, cap, forcedPods, reason, null);
    }

    /** A node whose CPU capacity and power hardware are not known, without a NodePowerProfile or an agent report. */
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

    /** A node without a NodePowerProfile or an agent report. */
    public ManagedNode(String name, Map<String, String> labels, boolean cordoned, PowerState state, Instant since,
                       List<String> performancePods, double cpuCores, NodePower power) {
        this(name, labels, cordoned, state, since, performancePods, cpuCores, power, null, NodeCap.NONE, List.of(), "");
    }

    public boolean hasPerformancePods() {
        return !performancePods.isEmpty();
    }

    /** The node's {@code joulie.io/power-profile} label, if it has one. */
    public Optional<String> powerProfileLabel() {
        return Optional.ofNullable(labels.get(JoulieApi.POWER_PROFILE_LABEL));
    }

    /**
     * The performance-only pods that run under the eco cap against the contract: on an ActiveEco node, or one whose
     * NodePowerProfile asks for eco (a commit written half-way: the cap went down, the state write failed), every one
     * that escalation force did not leave there. Empty on every other node.
     */
    public List<String> violators() {
        if (state != PowerState.ActiveEco && cap.profile() != Profile.ECO) {
            return List.of();
        }
        return performancePods.stream().filter(p -> !forcedPods.contains(p)).toList();
    }

    /**
     * When the node entered its state as this replica can vouch for it: the later of {@code since} (another replica's
     * clock, perhaps) and {@code stateSeen} (this replica's first sighting); {@code since} when there is no sighting.
     */
    public Instant stateSinceHere() {
        return stateSeen != null && stateSeen.isAfter(since) ? stateSeen : since;
    }

    public ManagedNode withCap(NodeCap c) {
        return new ManagedNode(name, labels, cordoned, state, since, performancePods, cpuCores, power, lastPerformancePod, c, forcedPods, reason, stateSeen);
    }

    public ManagedNode withLastPerformancePod(Instant at) {
        return new ManagedNode(name, labels, cordoned, state, since, performancePods, cpuCores, power, at, cap, forcedPods, reason, stateSeen);
    }

    public ManagedNode withForcedPods(List<String> pods) {
        return new ManagedNode(name, labels, cordoned, state, since, performancePods, cpuCores, power, lastPerformancePod, cap, pods, reason, stateSeen);
    }

    public ManagedNode withReason(String r) {
        return new ManagedNode(name, labels, cordoned, state, since, performancePods, cpuCores, power, lastPerformancePod, cap, forcedPods, r, stateSeen);
    }

    /** The same node, first seen in its current state by this replica at {@code at} (null: unknown). */
    public ManagedNode withStateSeen(Instant at) {
        return new ManagedNode(name, labels, cordoned, state, since, performancePods, cpuCores, power, lastPerformancePod, cap, forcedPods, reason, at);
    }
}
