package io.joulie.planner;

/** The CPU the active Pods bound to each node request: a node's load, as {@link EnergyEstimate} reads it. */
@FunctionalInterface
public interface NodeLoads {
    /** The cores requested on {@code node} (0 for none or an unknown node). */
    double requestedCores(String node);
}
