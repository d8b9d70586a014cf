package io.joulie.agent.control;


import java.util.Collection;
import java.util.EnumMap;
import java.util.Map;

/** The numbers a control action observes (in NodePowerProfile {@code status.applied}, messages and metrics), by key. */
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

    /**
     * From per-device limits as read back (in {@code 1 / unitsPerWatt} W: µW for RAPL, mW for NVML): {@link #CAP_WATTS}
     * (their sum), {@code mean} (the mean per device) and {@code count} (how many); nothing without limits.
     */
    public static Map<Observed, Double> ofLimits(Collection<Long> limits, double unitsPerWatt, Observed mean, Observed count) {
        Map<Observed, Double> observed = new EnumMap<>(Observed.class);
        if (!limits.isEmpty()) {
            double sum = limits.stream().mapToLong(Long::longValue).sum() / unitsPerWatt;
            observed.put(CAP_WATTS, sum);
            observed.put(mean, sum / limits.size());
            observed.put(count, (double) limits.size());
        }
        return observed;
    }

    /** A reading that changes all the time: written with the status, never a reason to write it (decision 13). */
    public boolean live() {
        return this == PACKAGE_POWER_WATTS || this == GPU_POWER_WATTS;
    }
}
