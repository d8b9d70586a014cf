package io.joulie.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A fake host for the agent in node mode: a sysfs tree with RAPL packages (a 200 W long-term limit each, the
 * "original" the agent must restore), a {@code /proc/cpuinfo} and an empty {@code /dev}, and the environment that
 * points the agent at them.
 */
public final class FakeRaplHost {
    public static final String ORIGINAL_LIMIT_UW = "200000000";
    private final Path root;
    private final int packages;
    private final long maxWatts;

    private FakeRaplHost(Path root, int packages, long maxWatts) {
        this.root = root;
        this.packages = packages;
        this.maxWatts = maxWatts;
    }

    /** Two packages, each limited to 200 W, allowing at most {@code maxWatts}. */
    public static FakeRaplHost create(Path root, long maxWatts) throws IOException {
        FakeRaplHost host = new FakeRaplHost(root, 2, maxWatts);
        for (int pkg = 0; pkg < host.packages; pkg++) {
            Path zone = host.zone(pkg);
            write(zone.resolve("name"), "package-" + pkg);
            write(zone.resolve("energy_uj"), "1000000");
            write(zone.resolve("max_energy_range_uj"), "262143328850");
            write(zone.resolve("enabled"), "1");
            write(zone.resolve("constraint_0_name"), "long_term");
            write(zone.resolve("constraint_0_power_limit_uw"), ORIGINAL_LIMIT_UW);
            write(zone.resolve("constraint_0_max_power_uw"), Long.toString(maxWatts * 1_000_000));
            write(zone.resolve("constraint_0_time_window_us"), "999424");
        }
        write(root.resolve("proc/cpuinfo"), "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: E2E CPU\n");
        Files.createDirectories(root.resolve("dev"));
        return host;
    }

    /** The agent's settings that read and write this tree instead of the machine's. */
    public Map<String, String> agentEnvironment() {
        return Map.of("JOULIE_SYSFS_ROOT", root.resolve("sys").toString(), "JOULIE_PROC_ROOT", root.resolve("proc").toString(),
                "JOULIE_DEV_ROOT", root.resolve("dev").toString());
    }

    public int packages() {
        return packages;
    }

    /**
     * The per-package limit (µW, as the kernel writes it) an agent must write for a node cap: the cap shared evenly,
     * never above what a package allows.
     */
    public String expectedLimit(double nodeCapWatts) {
        return Long.toString(Math.round(Math.min(nodeCapWatts / packages, maxWatts) * 1_000_000));
    }

    /** The long-term limit of a package, in µW as the kernel writes it. */
    public String limit(int pkg) throws IOException {
        return Files.readString(zone(pkg).resolve("constraint_0_power_limit_uw")).strip();
    }

    /** Sets a package's energy counter (µJ). */
    public void energy(int pkg, long microjoules) throws IOException {
        write(zone(pkg).resolve("energy_uj"), Long.toString(microjoules));
    }

    private Path zone(int pkg) {
        return root.resolve("sys/class/powercap/intel-rapl:" + pkg);
    }

    static void write(Path file, String value) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, value + "\n");
    }
}
