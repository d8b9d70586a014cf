package io.joulie.agent.host;

import io.joulie.agent.host.ffm.FfmMsr;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * A fake host under a temp dir: {@code sys/}, {@code proc/} and {@code dev/} laid out like the real ones,
 * with sysfs values ending in a newline as the kernel prints them. The FFM code under test reads and
 * writes these files exactly as it would the real ones.
 */
public final class FakeHost {
    /** What intel_rapl reports for a common server part (about 262 kJ). */
    public static final long MAX_ENERGY_RANGE_UJ = 262_143_328_850L;

    /** Power unit 1/8 W (bits 3:0 = 3), energy unit 1/2^14 J (bits 12:8 = 14), time unit bits 19:16 = 10. */
    public static final long INTEL_UNITS = 0xA0E03L;

    private final Path root;

    public FakeHost(Path root) {
        this.root = root;
    }

    public HostRoots roots() {
        return HostRoots.under(root);
    }

    public Path powercap() {
        return root.resolve("sys/class/powercap");
    }

    /** A zone directory with name, energy_uj, max_energy_range_uj and enabled. */
    public Path zone(String id, String name, long energyUj) {
        Path dir = powercap().resolve(id);
        write(dir.resolve("name"), name);
        write(dir.resolve("energy_uj"), Long.toString(energyUj));
        write(dir.resolve("max_energy_range_uj"), Long.toString(MAX_ENERGY_RANGE_UJ));
        write(dir.resolve("enabled"), "1");
        return dir;
    }

    /**
     * An Intel package zone {@code intel-rapl:N} (package-N): long_term limit 200 W (max 250 W, no min, as
     * intel_rapl reports it) and short_term limit 240 W (max 300 W).
     */
    public Path intelPackage(int n) {
        Path zone = zone("intel-rapl:" + n, "package-" + n, 1_000_000);
        constraint(zone, 0, "long_term", 200_000_000, 250_000_000, 999_424);
        constraint(zone, 1, "short_term", 240_000_000, 300_000_000, 2_440);
        return zone;
    }

    public void constraint(Path zone, int index, String name, long limitUw, long maxUw, long windowUs) {
        String prefix = "constraint_" + index + "_";
        write(zone.resolve(prefix + "name"), name);
        write(zone.resolve(prefix + "power_limit_uw"), Long.toString(limitUw));
        write(zone.resolve(prefix + "max_power_uw"), Long.toString(maxUw));
        write(zone.resolve(prefix + "time_window_us"), Long.toString(windowUs));
    }

    public static Path limitFile(Path zone) {
        return zone.resolve("constraint_0_power_limit_uw");
    }

    /**
     * A sparse file standing in for {@code dev/cpu/N/msr}: each register's 8 bytes, little-endian, at its
     * address. The real device maps each address to a whole register; a plain file cannot, so registers
     * less than 8 apart share bytes (0x610 and 0x611, 0xC0010299 and 0xC001029B). They are written in
     * ascending address order: a higher register overwrites the upper bytes of a lower one.
     */
    public Path msr(int cpu, Map<Long, Long> registers) {
        Path file = root.resolve("dev/cpu/" + cpu + "/msr");
        createParent(file);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"); FileChannel channel = raf.getChannel()) {
            for (Map.Entry<Long, Long> register : new TreeMap<>(registers).entrySet()) {
                ByteBuffer bytes = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(register.getValue()).flip();
                channel.write(bytes, register.getKey());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    /**
     * An Intel MSR device: RAPL units {@link #INTEL_UNITS} and the given package power limit (0x610). The
     * energy status (0x611) is written as the limit shifted by one byte, the one value consistent with the
     * seven bytes the two share in a plain file.
     */
    public Path intelMsr(int cpu, long powerLimit) {
        return msr(cpu, Map.of(FfmMsr.INTEL_RAPL_POWER_UNIT, INTEL_UNITS, FfmMsr.INTEL_PKG_POWER_LIMIT, powerLimit,
                FfmMsr.INTEL_PKG_ENERGY_STATUS, powerLimit >>> 8));
    }

    public void topology(int cpu, int physicalPackageId) {
        write(root.resolve("sys/devices/system/cpu/cpu" + cpu + "/topology/physical_package_id"), Integer.toString(physicalPackageId));
    }

    public Path cpufreqPolicy(int id, long minKHz, long maxKHz, long scalingMaxKHz) {
        Path dir = root.resolve("sys/devices/system/cpu/cpufreq/policy" + id);
        write(dir.resolve("cpuinfo_min_freq"), Long.toString(minKHz));
        write(dir.resolve("cpuinfo_max_freq"), Long.toString(maxKHz));
        write(dir.resolve("scaling_max_freq"), Long.toString(scalingMaxKHz));
        return dir.resolve("scaling_max_freq");
    }

    public void cpuinfo(String vendorId, String modelName) {
        String processor = "processor\t: %d\nvendor_id\t: " + vendorId + "\ncpu family\t: 6\nmodel\t\t: 143\nmodel name\t: "
                + modelName + "\nflags\t\t: fpu msr\n\n";
        write(root.resolve("proc/cpuinfo"), processor.formatted(0) + processor.formatted(1));
    }

    public void cgroupV2() {
        write(root.resolve("sys/fs/cgroup/cgroup.controllers"), "cpuset cpu io memory pids");
    }

    /** Writes {@code value} and a newline, creating directories. */
    public static void write(Path file, String value) {
        createParent(file);
        try {
            Files.writeString(file, value + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void createParent(Path file) {
        try {
            Files.createDirectories(file.getParent());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
