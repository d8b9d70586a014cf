package io.joulie.agent.control;

import io.joulie.api.v1alpha1.TelemetryProfileStatus;

/** The numbers a control action reports in {@code status.control.<family>.observed}, by their key there. */
public enum Observed {
    /** The node cap in force: the sum of the per-package limits read back, or the cap sent (http, dvfs). */
    CAP_WATTS(TelemetryProfileStatus.OBSERVED_CAP_WATTS),
    /** The mean long_term limit per package, as read back. */
    CAP_WATTS_PER_PACKAGE("capWattsPerPackage"),
    /** How many packages carry a limit. */
    PACKAGES("packages"),
    /** The DVFS throttle (share of cpufreq policies held at their minimum). */
    THROTTLE_PCT(TelemetryProfileStatus.OBSERVED_THROTTLE_PCT),
    /**
     * The {@code metadata.generation} of the NodePowerProfile the action answered: the operator labels a node
     * {@code performance} only once this says the performance cap it asked for is applied.
     */
    PROFILE_GENERATION(TelemetryProfileStatus.OBSERVED_PROFILE_GENERATION),
    /** The latest package power reading; left out when deciding whether the status changed (decision 13). */
    PACKAGE_POWER_WATTS("packagePowerWatts");

    private final String key;

    Observed(String key) {
        this.key = key;
    }

    public String key() {
        return key;
    }
}
