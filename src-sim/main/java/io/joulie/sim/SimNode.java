package io.joulie.sim;

import io.joulie.api.v1alpha1.PowerState;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** A simulated node's mutable state within one run. */
final class SimNode {
    final int index;
    final String name;
    /** {@link Scheduler#PERFORMANCE}, {@link Scheduler#ECO} or {@link Scheduler#DRAINING}. */
    int label = Scheduler.PERFORMANCE;
    PowerState state = PowerState.ActivePerformance;
    Instant since;
    /** The applied cap, already clamped by the node model. */
    double capWatts;
    double throttlePct;
    double throttleF = 1.0;
    int usedCores;
    int performanceJobs;
    final List<Integer> running = new ArrayList<>();
    /** Derived from the above; recomputed when {@link #dirty}. */
    double f = 1.0;
    double powerWatts;
    boolean dirty = true;

    SimNode(int index, String name, Instant since) {
        this.index = index;
        this.name = name;
        this.since = since;
    }

    /** Recomputes frequency and power after a change of load, cap or throttle; advances the throttle ramp. */
    void refresh(NodeModel model, double dt) {
        double u = (double) usedCores / model.cores();
        boolean ramping = Math.abs(throttleF - model.throttleTarget(throttlePct)) > 1e-9;
        if (ramping) {
            throttleF = model.throttleStep(throttleF, throttlePct, dt);
        }
        f = Math.min(model.capFrequency(u, capWatts), throttleF);
        powerWatts = model.measuredPower(u, f, capWatts);
        dirty = ramping;
    }
}
