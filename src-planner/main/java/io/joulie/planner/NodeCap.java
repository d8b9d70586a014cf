package io.joulie.planner;

import io.joulie.api.v1alpha1.NodePowerProfileSpec.CpuPower;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.GpuPower;
import io.joulie.api.v1alpha1.Profile;

import java.util.Objects;

/**
 * A node's cap as the cluster has it: what its NodePowerProfile asks for (as the informer cache holds it) and what its
 * agent reported.
 *
 * @param profile    the profile {@code spec.profile} asks for; null when the node has no NodePowerProfile yet
 * @param cpu        the CPU cap {@code spec.cpu} asks for (null without a NodePowerProfile or without one)
 * @param gpu        the GPU cap {@code spec.gpu} asks for (null without one)
 * @param generation the NodePowerProfile's {@code metadata.generation} (0 without one)
 * @param report     the agent's last report
 * @param resourceVersion the NodePowerProfile's {@code metadata.resourceVersion} as the cache showed it (null without
 *                   one): what a write of a decision on this view is conditioned on ({@link NodeAssignment.Basis})
 */
public record NodeCap(Profile profile, CpuPower cpu, GpuPower gpu, long generation, AgentReport report, String resourceVersion) {
    /** No NodePowerProfile and no agent report: how a node Joulie never touched looks. */
    public static final NodeCap NONE = new NodeCap(null, null, null, 0, AgentReport.NONE);

    /** A cap whose NodePowerProfile's resourceVersion is not known (simulations and tests that write no API object). */
    public NodeCap(Profile profile, CpuPower cpu, GpuPower gpu, long generation, AgentReport report) {
        this(profile, cpu, gpu, generation, report, null);
    }

    /**
     * Whether the NodePowerProfile already asks for {@code p} with {@code caps} on a node with {@code power} (writing the
     * assignment changes no generation).
     */
    boolean asks(Profile p, ProfileCaps caps, NodePower power) {
        return profile == p && Objects.equals(cpu, caps.cpu()) && Objects.equals(gpu, caps.gpuFor(power).orElse(null));
    }
}
