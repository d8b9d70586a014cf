package io.joulie.operator.planner;

import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.Profile;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

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
 * @param demandHeadroomFrac  demand_sized_v1: spare share of performance capacity on top of the performance-only demand
 * @param ecoCapWattsByType   eco cap of the nodes of a type (their {@code node.kubernetes.io/instance-type} label),
 *                            instead of {@code ecoCapWatts}
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
        Duration reconcileInterval,
        double demandHeadroomFrac,
        Map<String, Double> ecoCapWattsByType) {

    /** The default of {@code DEMAND_HEADROOM_FRAC}. */
    public static final double DEFAULT_DEMAND_HEADROOM = 0.2;

    public PlannerSettings {
        // sorted by type, so that the settings print and compare the same way every time
        ecoCapWattsByType = java.util.Collections.unmodifiableMap(new TreeMap<>(ecoCapWattsByType));
    }

    /** Settings without demand_sized_v1's headroom or per-type eco caps (their defaults). */
    public PlannerSettings(PolicyType policyType, double staticHpFrac, double queueHpBaseFrac, int queueHpMin,
                           int queueHpMax, int queuePerfPerHpNode, double performanceCapWatts, double ecoCapWatts,
                           Escalation escalation, Duration downgradeTimeout, Duration reconcileInterval) {
        this(policyType, staticHpFrac, queueHpBaseFrac, queueHpMin, queueHpMax, queuePerfPerHpNode, performanceCapWatts,
                ecoCapWatts, escalation, downgradeTimeout, reconcileInterval, DEFAULT_DEMAND_HEADROOM, Map.of());
    }

    /** The documented defaults. */
    public static PlannerSettings defaults() {
        return new PlannerSettings(PolicyType.STATIC_PARTITION, 0.50, 0.60, 1, 1_000_000, 10,
                5000, 120, Escalation.HOLD, Duration.ofMinutes(30), Duration.ofMinutes(1));
    }

    public PlannerSettings withPolicy(PolicyType type) {
        return new PlannerSettings(type, staticHpFrac, queueHpBaseFrac, queueHpMin, queueHpMax, queuePerfPerHpNode,
                performanceCapWatts, ecoCapWatts, escalation, downgradeTimeout, reconcileInterval, demandHeadroomFrac,
                ecoCapWattsByType);
    }

    public PlannerSettings withEscalation(Escalation e, Duration timeout) {
        return new PlannerSettings(policyType, staticHpFrac, queueHpBaseFrac, queueHpMin, queueHpMax,
                queuePerfPerHpNode, performanceCapWatts, ecoCapWatts, e, timeout, reconcileInterval, demandHeadroomFrac,
                ecoCapWattsByType);
    }

    /** These settings with demand_sized_v1's headroom and per-type eco caps. */
    public PlannerSettings withDemandSizing(double headroom, Map<String, Double> ecoCapsByType) {
        return new PlannerSettings(policyType, staticHpFrac, queueHpBaseFrac, queueHpMin, queueHpMax,
                queuePerfPerHpNode, performanceCapWatts, ecoCapWatts, escalation, downgradeTimeout, reconcileInterval,
                headroom, ecoCapsByType);
    }

    /** The cap written for a profile (the eco cap of nodes whose type has none of its own). */
    public double capWatts(Profile profile) {
        return profile == Profile.PERFORMANCE ? performanceCapWatts : ecoCapWatts;
    }

    /** The cap written for a profile on a node with these labels: the eco cap of its type, when one is set. */
    public double capWatts(Profile profile, Map<String, String> nodeLabels) {
        if (profile == Profile.PERFORMANCE || ecoCapWattsByType.isEmpty()) {
            return capWatts(profile);
        }
        String type = nodeLabels.get(Joulie.NODE_TYPE_LABEL);
        return type == null ? ecoCapWatts : ecoCapWattsByType.getOrDefault(type, ecoCapWatts);
    }
}
