package io.joulie.planner;

import io.joulie.api.v1alpha1.Profile;

/**
 * A node's cap as the cluster has it: what its NodePowerProfile asks for (as the informer cache holds it) and what its
 * agent reported.
 *
 * @param profile    the profile {@code spec.profile} asks for; null when the node has no NodePowerProfile yet
 * @param watts      the cap {@code spec.cpu.packagePowerCapWatts} asks for (0 without a NodePowerProfile)
 * @param generation the NodePowerProfile's {@code metadata.generation} (0 without one)
 * @param report     the agent's last report
 */
public record NodeCap(Profile profile, double watts, long generation, AgentReport report) {
    /** No NodePowerProfile and no agent report: how a node Joulie never touched looks. */
    public static final NodeCap NONE = new NodeCap(null, 0, 0, AgentReport.NONE);

    /** Whether the NodePowerProfile already asks for {@code p} at {@code w} watts (writing it changes no generation). */
    boolean asks(Profile p, double w) {
        return profile == p && Double.compare(watts, w) == 0;
    }
}
