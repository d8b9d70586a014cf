package io.joulie.planner;

import io.joulie.api.v1alpha1.Profile;

import java.util.Map;

/**
 * A policy's answer for one tick.
 *
 * @param policyName       the deciding policy
 * @param targets          target profile of every eligible node
 * @param performanceNodes how many eligible nodes the policy wants in performance
 * @param summary          one line on how the count was reached (logs, Events)
 * @param notes            per node, which rules shaped its target (appended to the NodePowerProfile reason)
 */
public record Plan(String policyName, Map<String, Profile> targets, int performanceNodes, String summary,
                   Map<String, String> notes) {
    public Plan {
        targets = Map.copyOf(targets);
        notes = Map.copyOf(notes);
    }

    public Plan(String policyName, Map<String, Profile> targets, int performanceNodes, String summary) {
        this(policyName, targets, performanceNodes, summary, Map.of());
    }
}
