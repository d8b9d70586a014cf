package io.joulie.agent.host;

/**
 * A cpufreq policy ({@code <sys>/devices/system/cpu/cpufreq/policyN}), frequencies in kHz.
 *
 * @param originalScalingMaxKHz {@code scaling_max_freq} as found at start, written back by restore
 */
public record CpufreqPolicy(int id, long cpuinfoMinKHz, long cpuinfoMaxKHz, long originalScalingMaxKHz) {
    public long clamp(long kHz) {
        return Math.min(Math.max(kHz, cpuinfoMinKHz), cpuinfoMaxKHz);
    }
}
