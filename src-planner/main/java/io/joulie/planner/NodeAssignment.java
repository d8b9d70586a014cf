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
 * @param basis      what the decision was made on (null: written whatever the cluster shows now)
 */
public record NodeAssignment(String node, PowerState state, Instant since, String reason, Profile profile,
                             CpuPower cpu, GpuPower gpu, String policyName, String label, CapStatus cap, List<String> forcedPods,
                             Basis basis) {

    public NodeAssignment {
        forcedPods = List.copyOf(forcedPods);
    }

    public NodeAssignment(String node, PowerState state, Instant since, String reason, Profile profile, CpuPower cpu,
                          GpuPower gpu, String policyName, String label, CapStatus cap, List<String> forcedPods) {
        this(node, state, since, reason, profile, cpu, gpu, policyName, label, cap, forcedPods, null);
    }

    /**
     * What a node's decision rests on, as the view it was made on showed the node: its NodePowerProfile's
     * resourceVersion (null: none yet) and its {@code joulie.io/power-profile} label (null: none). The actuation writes
     * the decision only while the cluster still shows both (locally, and as the API server's precondition): a decision
     * made on a view that has moved on since (another replica, a recheck that rescued the node meanwhile, a tick that
     * outlived its snapshot) is made again instead of undoing what came after it.
     */
    public record Basis(String resourceVersion, String label) {
        /** The basis of a decision about {@code node} on the view it was made on. */
        public static Basis of(ManagedNode node) {
            return new Basis(node.cap().resourceVersion(), node.powerProfileLabel().orElse(null));
        }
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
    public static NodeAssignment of(Transition t, ProfileCaps caps, String policyName, NodePower power, Basis basis) {
        return new NodeAssignment(t.node(), t.to(), t.since(), t.reason(), t.to().profile(), caps.cpu(),
                caps.gpuFor(power).orElse(null), policyName, t.label(), t.cap(), t.forcedPods(), basis);
    }

    public String labelValue() {
        return label;
    }

    /** Whether the NodePowerProfile's cap goes up with this assignment (then it is written before the label). */
    public boolean raisesCapFrom(Profile current) {
        return profile == Profile.PERFORMANCE && current != Profile.PERFORMANCE;
    }
}
