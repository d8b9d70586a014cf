package io.joulie.planner;

import io.joulie.api.v1alpha1.NodePowerProfileSpec.CpuPower;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.GpuPower;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;

import java.time.Instant;
import java.util.List;

/**
 * The desired per-node state that the actuation writes: the NodePowerProfile's spec and status and the
 * node's {@code joulie.io/power-profile} label.
 *
 * @param cpu        the CPU cap of the profile
 * @param gpu        the GPU cap of the profile; null for a node without GPU boards
 * @param label      the label value to write ({@code performance} only once the agent confirmed the performance cap)
 * @param cap        whether the agent confirmed the cap, with the cap it reported (status, side by side with the desired one)
 * @param forcedPods performance-only pods escalation force left under the eco cap (status)
 */
public record NodeAssignment(String node, PowerState state, Instant since, String reason, Profile profile,
                             CpuPower cpu, GpuPower gpu, String policyName, String label, CapStatus cap, List<String> forcedPods) {

    public NodeAssignment {
        forcedPods = List.copyOf(forcedPods);
    }

    /** An assignment whose label is the state's and whose cap no agent reports on. */
    public NodeAssignment(String node, PowerState state, Instant since, String reason, Profile profile, CpuPower cpu,
                          GpuPower gpu, String policyName) {
        this(node, state, since, reason, profile, cpu, gpu, policyName, state.labelValue(), CapStatus.UNREPORTED, List.of());
    }

    /**
     * The assignment of a verdict, with the caps the tick chose for its node ({@link Planner.TickPlan#caps}) and the
     * node's hardware ({@code power}: whether it has GPU boards to cap).
     */
    public static NodeAssignment of(Transition t, ProfileCaps caps, String policyName, NodePower power) {
        return new NodeAssignment(t.node(), t.to(), t.since(), t.reason(), t.to().profile(), caps.cpu(),
                caps.gpuFor(power).orElse(null), policyName, t.label(), t.cap(), t.forcedPods());
    }

    public String labelValue() {
        return label;
    }

    /** Whether the NodePowerProfile's cap goes up with this assignment (then it is written before the label). */
    public boolean raisesCapFrom(Profile current) {
        return profile == Profile.PERFORMANCE && current != Profile.PERFORMANCE;
    }
}
