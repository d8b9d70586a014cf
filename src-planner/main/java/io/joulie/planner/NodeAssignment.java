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

    public static NodeAssignment of(Transition t, PlannerSettings settings, String policyName) {
        Profile p = t.to().profile();
        return new NodeAssignment(t.node(), t.to(), t.since(), t.reason(), p, settings.capWatts(p), policyName);
    }

    public String labelValue() {
        return state.labelValue();
    }
}
