package io.joulie.sim.cluster;

/**
 * What the real operator (labels) and agent (caps, throttles over the agent's HTTP contract) change on the simulated
 * nodes, by node name. Changes are collected on other threads and applied on the simulation thread only.
 */
interface NodeControls {
    /** The node's {@code joulie.io/power-profile} label value, or null when it has none. */
    void label(String node, String value);

    /** The cap the agent applied (watts, clamped by the node model). */
    void cap(String node, double watts);

    /** The limit the agent applied to each of the node's GPU boards (watts, clamped by its GPU model). */
    void gpuCap(String node, double wattsPerBoard);

    /** The cap lifted (DVFS took over). */
    void liftCap(String node);

    /** The DVFS throttle the agent applied (percent). */
    void throttle(String node, double percent);
}
