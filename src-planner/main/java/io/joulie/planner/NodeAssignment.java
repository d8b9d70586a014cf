package io.joulie.planner;

import io.joulie.api.v1alpha1.NodePowerProfileSpec.CpuPower;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.GpuPower;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;

import java.time.Instant;

/**
 * The desired per-node state that the actuation writes: the NodePowerProfile's spec and status and the
 * node's {@code joulie.io/power-profile} label.
 *
 * @param cpu the CPU cap of the profile
 * @param gpu the GPU cap of the profile; null for a node without GPU boards
 */
public record NodeAssignment(String node, PowerState state, Instant since, String reason, Profile profile,
                             CpuPower cpu, GpuPower gpu, String policyName) {

    /**
     * The assignment of a verdict, with the caps the tick chose for its node ({@link Planner.TickPlan#caps}) and the
     * node's hardware ({@code power}: whether it has GPU boards to cap).
     */
    public static NodeAssignment of(Transition t, ProfileCaps caps, String policyName, NodePower power) {
        return new NodeAssignment(t.node(), t.to(), t.since(), t.reason(), t.to().profile(), caps.cpu(),
                caps.gpuFor(power).orElse(null), policyName);
    }

    public String labelValue() {
        return state.labelValue();
    }
}
