package io.joulie.sim;

/** Baseline A: no Joulie. No planner, no caps, no power-profile restrictions. */
public final class NoJoulie implements ControlPlane {
    @Override
    public boolean profilesConstrainPlacement() {
        return false;
    }

    @Override
    public void start(SimCluster cluster) {
        cluster.nodes().forEach(cluster::liftCap);
    }

    @Override
    public void beforeStep(double t, SimCluster cluster) {
        // nothing decides anything
    }
}
