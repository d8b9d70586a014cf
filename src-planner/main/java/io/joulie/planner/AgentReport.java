package io.joulie.planner;

import io.joulie.api.v1alpha1.NodePowerProfileStatus.Applied;

/**
 * What a node's agent answered in its NodePowerProfile ({@code status.applied}), and whether an agent serves the node at
 * all (it published the node's NodeHardware): a node an agent serves but whose profile it has not answered is not taken
 * as uncapped.
 *
 * @param applied the agent's answer; null when it has written none
 * @param served  an agent serves the node
 */
public record AgentReport(Applied applied, boolean served) {
    /** No agent serves the node and none answered. */
    public static final AgentReport NONE = new AgentReport(null, false);

    /** Whether an agent answered at all. */
    public boolean reported() {
        return applied != null;
    }
}
