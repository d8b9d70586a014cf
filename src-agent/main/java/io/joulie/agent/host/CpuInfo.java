package io.joulie.agent.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The CPU's vendor and model from {@code <proc>/cpuinfo} (first processor; OTHER and "" where not stated, ARM), and its
 * topology: logical CPUs ({@code processor} entries), sockets (distinct {@code physical id}) and physical cores
 * (distinct {@code physical id}/{@code core id} pairs); sockets and cores are empty where cpuinfo does not give them.
 */
public record CpuInfo(CpuVendor vendor, String model, OptionalInt sockets, OptionalInt cores, int threads) {
    public CpuInfo(CpuVendor vendor, String model) {
        this(vendor, model, OptionalInt.empty(), OptionalInt.empty(), 0);
    }

    public static CpuInfo read(Path procRoot) throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(procRoot.resolve("cpuinfo"));
        } catch (NoSuchFileException e) {
            return new CpuInfo(CpuVendor.OTHER, "");
        }
        List<List<String>> processors = new ArrayList<>();
        List<String> current = null;
        for (String line : lines) {
            if (key(line).equals("processor")) {
                current = new ArrayList<>();
                processors.add(current);
            }
            if (current != null) {
                current.add(line);
            }
        }
        Set<String> sockets = new HashSet<>();
        Set<String> cores = new HashSet<>();
        for (List<String> processor : processors) {
            String socket = field(processor, "physical id");
            String core = field(processor, "core id");
            if (!socket.isEmpty()) {
                sockets.add(socket);
                if (!core.isEmpty()) {
                    cores.add(socket + "/" + core);
                }
            }
        }
        return new CpuInfo(CpuVendor.ofVendorId(field(lines, "vendor_id")), field(lines, "model name"),
                sockets.isEmpty() ? OptionalInt.empty() : OptionalInt.of(sockets.size()),
                cores.isEmpty() ? OptionalInt.empty() : OptionalInt.of(cores.size()), processors.size());
    }

    private static String key(String line) {
        int colon = line.indexOf(':');
        return colon > 0 ? line.substring(0, colon).strip() : "";
    }

    private static String field(List<String> lines, String key) {
        for (String line : lines) {
            if (key(line).equals(key)) {
                return line.substring(line.indexOf(':') + 1).strip();
            }
        }
        return "";
    }
}
