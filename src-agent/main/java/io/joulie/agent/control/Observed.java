package io.joulie.agent.control;

/** The numbers a control action reports in {@code status.control.<family>.observed}, by their key there. */
public enum Observed {
    /** The node cap in force: the sum of the per-package limits read back, or the cap sent (http, dvfs). */
    CAP_WATTS("capWatts"),
    /** The mean long_term limit per package, as read back. */
    CAP_WATTS_PER_PACKAGE("capWattsPerPackage"),
    /** How many packages carry a limit. */
    PACKAGES("packages"),
    /** The DVFS throttle (share of cpufreq policies held at their minimum). */
    THROTTLE_PCT("throttlePct"),
    /** The latest package power reading; left out when deciding whether the status changed (decision 13). */
    PACKAGE_POWER_WATTS("packagePowerWatts"),
    /** The mean power limit per GPU board, as read back (or sent, http). */
    CAP_WATTS_PER_GPU("capWattsPerGpu"),
    /** How many GPU boards carry a limit. */
    GPUS("gpus"),
    /** The latest power reading summed over the GPU boards; left out when deciding whether the status changed. */
    GPU_POWER_WATTS("gpuPowerWatts");

    private final String key;

    Observed(String key) {
        this.key = key;
    }

    public String key() {
        return key;
    }

    /** A reading that changes all the time: written with the status, never a reason to write it (decision 13). */
    public boolean live() {
        return this == PACKAGE_POWER_WATTS || this == GPU_POWER_WATTS;
    }
}
