package io.joulie.agent.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/** The CPU's vendor and model from {@code <proc>/cpuinfo} (first processor); OTHER and "" where not stated (ARM). */
public record CpuInfo(CpuVendor vendor, String model) {
    public static CpuInfo read(Path procRoot) throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(procRoot.resolve("cpuinfo"));
        } catch (NoSuchFileException e) {
            return new CpuInfo(CpuVendor.OTHER, "");
        }
        return new CpuInfo(CpuVendor.ofVendorId(field(lines, "vendor_id")), field(lines, "model name"));
    }

    private static String field(List<String> lines, String key) {
        for (String line : lines) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).strip().equals(key)) {
                return line.substring(colon + 1).strip();
            }
        }
        return "";
    }
}
