package io.joulie.sim;

/**
 * Cluster mode's control plane: instead of calling the planner itself, the simulation takes node labels and
 * caps from outside (the API server the real operator writes to, the HTTP calls of the real agent) and
 * reports its jobs' lifecycle (so that they can be mirrored as Pods).
 */
public interface ExternalControl {
    /** What the control plane may change on a simulated node; only call it from {@link #beforeStep}. */
    interface Nodes {
        /** The node's {@code joulie.io/power-profile} label value, or null when it has none. */
        void label(String node, String value);

        /** The cap the agent applied (watts, clamped by the node model). */
        void cap(String node, double watts);

        /** The DVFS throttle the agent applied (percent). */
        void throttle(String node, double percent);

        /** Latest measured power of every node, by index. */
        double powerWatts(int index);
    }

    /** Called on the simulation thread before every step at simulated time {@code t}; may block (pacing). */
    void beforeStep(double t, Nodes nodes);

    /** A job arrived and waits for a node. */
    void queued(JobSpec job);

    /** A job was placed on {@code node}. */
    void started(JobSpec job, String node);

    /** A job finished (or was evicted: it is queued again right after). */
    void finished(JobSpec job);
}
