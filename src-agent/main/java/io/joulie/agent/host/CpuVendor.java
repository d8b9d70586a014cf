package io.joulie.agent.host;

import java.util.Locale;

public enum CpuVendor {
    INTEL, AMD, OTHER;

    /** From /proc/cpuinfo's {@code vendor_id}. */
    public static CpuVendor ofVendorId(String vendorId) {
        return switch (vendorId) {
            case "GenuineIntel" -> INTEL;
            case "AuthenticAMD", "HygonGenuine" -> AMD;
            default -> OTHER;
        };
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
