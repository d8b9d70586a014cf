package io.joulie.agent.host;

import java.io.IOException;
import java.util.List;

/** The cpufreq frequency ceiling of each policy ({@code scaling_max_freq}). */
public interface Cpufreq {
    /** Policies found at start, by policy number. */
    List<CpufreqPolicy> policies();

    /** Writes {@code scaling_max_freq} clamped to [cpuinfo_min_freq, cpuinfo_max_freq]; returns the value written. */
    long setScalingMaxKHz(int policyId, long kHz) throws IOException;

    /**
     * Reads every policy's {@code scaling_max_freq} in force now as its original (before a first write: nothing of the
     * agent's is in force); {@link #policies()} then carries them.
     */
    void recordOriginals() throws IOException;

    /** Writes every policy's original {@code scaling_max_freq} back. */
    void restore() throws IOException;

    /** For hosts without cpufreq (many VMs): no policies. */
    static Cpufreq absent() {
        return new Cpufreq() {
            @Override
            public List<CpufreqPolicy> policies() {
                return List.of();
            }

            @Override
            public long setScalingMaxKHz(int policyId, long kHz) {
                throw new IllegalArgumentException("no cpufreq policy " + policyId + " on this host");
            }

            @Override
            public void recordOriginals() {
            }

            @Override
            public void restore() {
            }
        };
    }
}
