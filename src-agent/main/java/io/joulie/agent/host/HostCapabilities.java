package io.joulie.agent.host;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What the node offers for power management, and the node labels that advertise it.
 *
 * @param rapl         powercap package zones present
 * @param raplWritable every package's long_term limit can be written (see {@link Powercap#writable()})
 * @param msr          the package RAPL registers can be read
 * @param cpufreq      cpufreq policies present
 * @param arch         {@code os.arch}
 */
public record HostCapabilities(boolean rapl, boolean raplWritable, boolean msr, boolean cpufreq, CpuVendor vendor,
                               String cpuModel, String arch, CgroupVersion cgroup) {
    public static final String LABEL_PREFIX = io.joulie.api.v1alpha1.JoulieApi.FEATURE_LABEL_PREFIX;

    public enum CgroupVersion {
        V1, V2;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Node labels; every value is a valid label value ({@code true}/{@code false}, a vendor, {@code v1}/{@code v2}). */
    public Map<String, String> labels() {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(LABEL_PREFIX + "rapl", Boolean.toString(rapl));
        labels.put(io.joulie.api.v1alpha1.JoulieApi.FEATURE_RAPL_WRITABLE, Boolean.toString(raplWritable));
        labels.put(LABEL_PREFIX + "msr", Boolean.toString(msr));
        labels.put(io.joulie.api.v1alpha1.JoulieApi.FEATURE_CPUFREQ, Boolean.toString(cpufreq));
        labels.put(LABEL_PREFIX + "cpu-vendor", vendor.label());
        labels.put(LABEL_PREFIX + "cgroup", cgroup.label());
        return labels;
    }
}
