package io.joulie.sim;

import io.joulie.api.v1alpha1.PowerState;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.ProfileCaps;

import java.time.Instant;
import java.util.List;

/** The simulated cluster as a {@link ControlPlane} sees and changes it (only from {@link ControlPlane#beforeStep}). */
public interface SimCluster {
    /** Every node, by index. */
    List<SimNode> nodes();

    /** The node of this name; an unknown name is an {@link IllegalArgumentException}. */
    SimNode node(String name);

    /** Performance-only jobs running or waiting. */
    long activePerformanceJobs();

    /** The cores that waiting or running jobs request: performance-only, eco-only, unconstrained that declare eco. */
    ClusterContext.CpuDemand cpuDemand();

    /** The GPU boards that waiting or running jobs request, by the same classes. */
    ClusterContext.GpuDemand gpuDemand();

    /** The performance-only pods running on the node ({@code namespace/name}), sorted. */
    List<String> performancePods(SimNode node);

    /**
     * What the operator writes and the agent enforces: the node's state and since, its
     * {@code joulie.io/power-profile} label (the state's), its caps resolved on its hardware and clamped: the CPU cap
     * in watts or a percent of the CPU model's highest cap, the GPU cap (on a node with GPU boards) in watts per board
     * or a percent of each board's highest limit.
     */
    void apply(SimNode node, PowerState state, Instant since, ProfileCaps caps);

    /** The node's label as the operator wrote it (cluster mode); the state follows the label. */
    void label(SimNode node, String value);

    /** The cap the agent applied (clamped by the node's model). */
    void cap(SimNode node, double watts);

    /** The limit the agent applied to each of the node's GPU boards (clamped by its GPU model). */
    void gpuCap(SimNode node, double wattsPerBoard);

    /** No cap: the node's model maximum, and its GPU boards' default limit. */
    void liftCap(SimNode node);

    /** The DVFS throttle the agent applied (percent). */
    void throttle(SimNode node, double percent);

    /** Evicts the job of this pod from the node and queues it again, first; false when it does not run there. */
    boolean evict(SimNode node, String pod);

    /** Counts one planner call. */
    void countTick();
}
