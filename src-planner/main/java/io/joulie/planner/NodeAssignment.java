package io.joulie.planner;

import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;

import java.time.Instant;

/**
 * The desired per-node state that the actuation writes: the NodePowerProfile's spec and status and the
 * node's {@code joulie.io/power-profile} label.
 */
public record NodeAssignment(String node, PowerState state, Instant since, String reason, Profile profile,
                             double capWatts, String policyName) {

    /** The assignment of a verdict, with the cap the tick chose for its node ({@link Planner.TickPlan#capWatts}). */
    public static NodeAssignment of(Transition t, double capWatts, String policyName) {
        return new NodeAssignment(t.node(), t.to(), t.since(), t.reason(), t.to().profile(), capWatts, policyName);
    }

    public String labelValue() {
        return state.labelValue();
    }
}
