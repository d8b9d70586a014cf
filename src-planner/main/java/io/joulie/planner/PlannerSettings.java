package io.joulie.planner;

import java.time.Duration;

/**
 * The planner's validated settings (see docs/configuration.md). Out-of-range numbers are not errors:
 * the policies define how they are clamped.
 *
 * @param policyType          base policy in force
 * @param staticHpFrac        static_partition share of performance nodes
 * @param queueHpBaseFrac     queue_aware_v1 base share
 * @param queueHpMin          queue_aware_v1 lower bound on performance nodes
 * @param queueHpMax          queue_aware_v1 upper bound on performance nodes
 * @param queuePerfPerHpNode  performance-only pods one performance node absorbs
 * @param performanceCapWatts cap written for the performance profile
 * @param ecoCapWatts         cap written for the eco profile
 * @param escalation          what to do when a drain outlasts the timeout
 * @param downgradeTimeout    how long a node may stay DrainingPerformance before escalation
 * @param reconcileInterval   tick interval (also the rule_swap_v1 phase length)
 */
public record PlannerSettings(
        PolicyType policyType,
        double staticHpFrac,
        double queueHpBaseFrac,
        int queueHpMin,
        int queueHpMax,
        int queuePerfPerHpNode,
        double performanceCapWatts,
        double ecoCapWatts,
        Escalation escalation,
        Duration downgradeTimeout,
        Duration reconcileInterval) {

    /** The documented defaults. */
    public static PlannerSettings defaults() {
        return new PlannerSettings(PolicyType.STATIC_PARTITION, 0.50, 0.60, 1, 1_000_000, 10,
                5000, 120, Escalation.HOLD, Duration.ofMinutes(30), Duration.ofMinutes(1));
    }

    public PlannerSettings withPolicy(PolicyType type) {
        return new PlannerSettings(type, staticHpFrac, queueHpBaseFrac, queueHpMin, queueHpMax, queuePerfPerHpNode,
                performanceCapWatts, ecoCapWatts, escalation, downgradeTimeout, reconcileInterval);
    }

    public PlannerSettings withEscalation(Escalation e, Duration timeout) {
        return new PlannerSettings(policyType, staticHpFrac, queueHpBaseFrac, queueHpMin, queueHpMax,
                queuePerfPerHpNode, performanceCapWatts, ecoCapWatts, e, timeout, reconcileInterval);
    }

    /** The cap written for a profile. */
    public double capWatts(io.joulie.api.v1alpha1.Profile profile) {
        return profile == io.joulie.api.v1alpha1.Profile.PERFORMANCE ? performanceCapWatts : ecoCapWatts;
    }
}
