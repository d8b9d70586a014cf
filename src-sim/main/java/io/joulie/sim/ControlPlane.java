package io.joulie.sim;

/**
 * What decides the simulated nodes' labels and caps: nothing ({@link NoJoulie}, baseline A), the operator's
 * planning core called in-process ({@link InProcessPlanner}), or the real operator and agent on an API server
 * (cluster mode, {@code io.joulie.sim.cluster}). The {@link Simulation} calls it on its own thread.
 */
public interface ControlPlane {
    /** Whether jobs' power-profile selectors bind; false without Joulie, where every node fits every job. */
    default boolean profilesConstrainPlacement() {
        return true;
    }

    /** Sets every node's cap (and label, when it is not {@code performance}) before the first step. */
    void start(SimCluster cluster);

    /** Called before every physics step at simulated time {@code t}; may change labels and caps, may block (pacing). */
    void beforeStep(double t, SimCluster cluster);

    /** A job arrived and waits for a node. */
    default void queued(JobSpec job) {
    }

    /** A job was placed on {@code node}. */
    default void started(JobSpec job, SimNode node) {
    }

    /** A job finished (or was evicted: it is queued again right after). */
    default void finished(JobSpec job) {
    }
}
