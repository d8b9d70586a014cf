package io.joulie.testkit;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A fake host under a directory: {@code sys/}, {@code proc/} and {@code dev/} laid out like the real ones,
 * with sysfs values ending in a newline as the kernel prints them, and the powercap zones where the kernel puts them
 * ({@code sys/devices/virtual/powercap}, reached through the symbolic links of {@code sys/class/powercap}). The agent's host layer reads and writes
 * these files exactly as it would the real ones, in unit tests (FFM on a temp tree), in the agent's
 * {@code @QuarkusTest} and in the black-box tests of the packaged agent ({@link #agentEnvironment()}).
 * Register addresses and sysfs names are written from the kernel's and Intel's documentation, not taken
 * from the agent's code, so a wrong constant there fails the tests instead of agreeing with itself.
 */
public final class FakeHost {
    /** What intel_rapl reports for a common server part (about 262 kJ). */
    public static final long MAX_ENERGY_RANGE_UJ = 262_143_328_850L;
    /** Power unit 1/8 W (bits 3:0 = 3), energy unit 1/2^14 J (bits 12:8 = 14), time unit bits 19:16 = 10. */
    public static final long INTEL_UNITS = 0xA0E03L;
    /** MSR_RAPL_POWER_UNIT, MSR_PKG_POWER_LIMIT, MSR_PKG_ENERGY_STATUS (Intel SDM, volume 4). */
    public static final long INTEL_RAPL_POWER_UNIT = 0x606;
    public static final long INTEL_PKG_POWER_LIMIT = 0x610;
    public static final long INTEL_PKG_ENERGY_STATUS = 0x611;
    /** MSR_PKG_POWER_INFO: thermal spec power (TDP) in bits 14:0, in power units (Intel SDM, volume 4). */
    public static final long INTEL_PKG_POWER_INFO = 0x614;
    /** The long_term limit every {@link #intelPackage} starts with: what an agent must put back when it leaves. */
    public static final long ORIGINAL_LIMIT_UW = 200_000_000;
    /** The long_term {@code max_power_uw} of {@link #intelPackage(int)}. */
    public static final long DEFAULT_MAX_UW = 250_000_000;
    /** The boot id {@link #intelNode} starts with ({@code proc/sys/kernel/random/boot_id}). */
    public static final String FIRST_BOOT_ID = "6f1b3f0e-2d4c-4e0a-9d1e-000000000001";

    private final Path root;
    /** The Intel packages made so far, by number, with their long_term maximum (µW). */
    private final Map<Integer, Long> intelPackages = new TreeMap<>();

    public FakeHost(Path root) {
        this.root = root;
    }

    /**
     * A node as the agent tests use it: {@code packages} Intel packages (long_term 200 W each, at most
     * {@code maxWattsPerPackage}), a GenuineIntel {@code proc/cpuinfo} and an empty {@code dev/}.
     */
    public static FakeHost intelNode(Path root, int packages, long maxWattsPerPackage) {
        FakeHost host = new FakeHost(root);
        for (int pkg = 0; pkg < packages; pkg++) {
            host.intelPackage(pkg, maxWattsPerPackage * 1_000_000);
        }
        host.cpuinfo("GenuineIntel", "Intel(R) Xeon(R) Test CPU");
        host.bootId(FIRST_BOOT_ID);
        createDirectories(host.dev());
        return host;
    }

    public Path root() {
        return root;
    }

    public Path sys() {
        return root.resolve("sys");
    }

    public Path proc() {
        return root.resolve("proc");
    }

    public Path dev() {
        return root.resolve("dev");
    }

    /** Where the agent keeps what it found on this host across its processes (JOULIE_STATE_DIR): {@code state/}. */
    public Path stateDir() {
        return root.resolve("state");
    }

    /**
     * The agent's settings (environment variables, docs/agent.md) that read and write this tree instead of the machine's,
     * and keep their state in {@link #stateDir()}.
     */
    public Map<String, String> agentEnvironment() {
        return Map.of("JOULIE_SYSFS_ROOT", sys().toString(), "JOULIE_PROC_ROOT", proc().toString(), "JOULIE_DEV_ROOT", dev().toString(),
                "JOULIE_STATE_DIR", stateDir().toString());
    }

    /** Sets the kernel's boot id ({@code proc/sys/kernel/random/boot_id}). */
    public void bootId(String id) {
        write(proc().resolve("sys/kernel/random/boot_id"), id);
    }

    /**
     * A reboot: a new boot id, and the firmware's limits back on every Intel package ({@link #ORIGINAL_LIMIT_UW}),
     * as the firmware sets them at every boot.
     */
    public void reboot(String newBootId) {
        bootId(newBootId);
        for (int pkg : intelPackages.keySet()) {
            write(limitFile(intelZone(pkg)), Long.toString(ORIGINAL_LIMIT_UW));
        }
    }

    /**
     * {@code sys/class/powercap}: where the agent looks for zones. As on a kernel, it holds only symbolic links, one per
     * control type and one per zone, into {@link #powercapDevices()}.
     */
    public Path powercap() {
        return sys().resolve("class/powercap");
    }

    /**
     * {@code sys/devices/virtual/powercap}: where the zones' directories and files are. The powercap framework registers
     * each control type as a virtual device ({@code intel-rapl}, also on AMD, whose RAPL the same driver serves; {@code
     * intel-rapl-mmio}, ...), each zone as a child device of its control type ({@code intel-rapl:N}) and each sub-zone as
     * a child of its zone ({@code intel-rapl:N:M}), so a sub-zone's directory is inside its zone's.
     */
    public Path powercapDevices() {
        return sys().resolve("devices/virtual/powercap");
    }

    /**
     * The directory a zone's files are in, under {@link #powercapDevices()}: {@code intel-rapl:0:1} is
     * {@code intel-rapl/intel-rapl:0/intel-rapl:0:1}. The control type is the id up to its first colon.
     */
    public Path zoneDevice(String id) {
        String[] parts = id.split(":");
        if (parts.length < 2 || parts[0].isEmpty()) {
            throw new IllegalArgumentException("not a powercap zone id (<control type>:<n>[:<m>]): " + id);
        }
        Path dir = powercapDevices().resolve(parts[0]);
        StringBuilder name = new StringBuilder(parts[0]);
        for (int i = 1; i < parts.length; i++) {
            name.append(':').append(parts[i]);
            dir = dir.resolve(name.toString());
        }
        return dir;
    }

    /**
     * A zone with name, energy_uj, max_energy_range_uj and enabled, laid out as the kernel does: its directory under
     * {@link #powercapDevices()} ({@link #zoneDevice}), with {@code sys/class/powercap/<id>} and
     * {@code sys/class/powercap/<control type>} relative symbolic links to it and to its control type (whose
     * {@code enabled} is 1). Returns the zone's path under {@link #powercap()}, the one the agent opens and names.
     */
    public Path zone(String id, String name, long energyUj) {
        Path device = zoneDevice(id);
        Path controlType = powercapDevices().resolve(id.substring(0, id.indexOf(':')));
        if (!Files.exists(controlType.resolve("enabled"))) {
            write(controlType.resolve("enabled"), "1");
        }
        write(device.resolve("name"), name);
        write(device.resolve("energy_uj"), Long.toString(energyUj));
        write(device.resolve("max_energy_range_uj"), Long.toString(MAX_ENERGY_RANGE_UJ));
        write(device.resolve("enabled"), "1");
        link(powercap().resolve(controlType.getFileName().toString()), controlType);
        return link(powercap().resolve(id), device);
    }

    /** A relative symbolic link {@code link} to {@code target}, as sysfs makes its class links; kept if it is there. */
    private static Path link(Path link, Path target) {
        createDirectories(link.getParent());
        if (Files.isSymbolicLink(link)) {
            return link;
        }
        if (Files.exists(link)) {
            throw new IllegalStateException(link + " exists and is no symbolic link: a powercap class entry is a link to its device");
        }
        try {
            return Files.createSymbolicLink(link, link.getParent().relativize(target));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * An Intel package zone {@code intel-rapl:N} (package-N): long_term limit 200 W (max 250 W, no min, as
     * intel_rapl reports it) and short_term limit 240 W (max 300 W).
     */
    public Path intelPackage(int n) {
        return intelPackage(n, DEFAULT_MAX_UW);
    }

    /** {@link #intelPackage(int)} with another long_term maximum. */
    public Path intelPackage(int n, long longTermMaxUw) {
        Path zone = zone("intel-rapl:" + n, "package-" + n, 1_000_000);
        constraint(zone, 0, "long_term", ORIGINAL_LIMIT_UW, longTermMaxUw, 999_424);
        constraint(zone, 1, "short_term", 240_000_000, 300_000_000, 2_440);
        intelPackages.put(n, longTermMaxUw);
        return zone;
    }

    public void constraint(Path zone, int index, String name, long limitUw, long maxUw, long windowUs) {
        String prefix = "constraint_" + index + "_";
        write(zone.resolve(prefix + "name"), name);
        write(zone.resolve(prefix + "power_limit_uw"), Long.toString(limitUw));
        write(zone.resolve(prefix + "max_power_uw"), Long.toString(maxUw));
        write(zone.resolve(prefix + "time_window_us"), Long.toString(windowUs));
    }

    /** The long_term limit file (constraint 0) of a zone directory. */
    public static Path limitFile(Path zone) {
        return zone.resolve("constraint_0_power_limit_uw");
    }

    /** The directory of Intel package {@code pkg}. */
    public Path intelZone(int pkg) {
        return powercap().resolve("intel-rapl:" + pkg);
    }

    /** How many Intel packages {@link #intelPackage} made. */
    public int packages() {
        return intelPackages.size();
    }

    /** The long_term limit of Intel package {@code pkg}, in µW as the kernel prints it (without the newline). */
    public String limit(int pkg) {
        return read(limitFile(intelZone(pkg))).strip();
    }

    /**
     * The long_term limit (µW, as {@link #limit} reads it) an agent must write on package {@code pkg} for a node
     * cap: the cap shared evenly over the Intel packages, never above the package's maximum.
     */
    public String expectedLimit(int pkg, double nodeCapWatts) {
        return Long.toString(Math.round(Math.min(nodeCapWatts / packages() * 1e6, intelPackages.get(pkg))));
    }

    /** Sets a package's energy counter (µJ). */
    public void energy(int pkg, long microjoules) {
        write(intelZone(pkg).resolve("energy_uj"), Long.toString(microjoules));
    }

    /** Adds {@code microjoules} to every Intel package's energy counter. */
    public void addEnergy(long microjoules) {
        for (int pkg : intelPackages.keySet()) {
            Path file = intelZone(pkg).resolve("energy_uj");
            energy(pkg, Long.parseLong(read(file).strip()) + microjoules);
        }
    }

    /**
     * A sparse file standing in for {@code dev/cpu/N/msr}: each register's 8 bytes, little-endian, at its
     * address. The real device maps each address to a whole register; a plain file cannot, so registers
     * less than 8 apart share bytes (0x610 and 0x611, 0xC0010299 and 0xC001029B). They are written in
     * ascending address order: a higher register overwrites the upper bytes of a lower one.
     */
    public Path msr(int cpu, Map<Long, Long> registers) {
        Path file = dev().resolve("cpu/" + cpu + "/msr");
        createDirectories(file.getParent());
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
     * seven bytes the two share in a plain file; the power info (0x614) as the limit shifted by four bytes, for
     * the same reason, so the TDP it reports (bits 14:0) is the limit's PL2 field (bits 46:32).
     */
    public Path intelMsr(int cpu, long powerLimit) {
        return msr(cpu, Map.of(INTEL_RAPL_POWER_UNIT, INTEL_UNITS, INTEL_PKG_POWER_LIMIT, powerLimit,
                INTEL_PKG_ENERGY_STATUS, powerLimit >>> 8, INTEL_PKG_POWER_INFO, powerLimit >>> 32));
    }

    /** The msr driver's character device major number (Documentation/admin-guide/devices.txt: 202 char, CPU model-specific registers). */
    public static final int MSR_MAJOR = 202;

    /**
     * A real character device {@code dev/cpu/N/msr} with the msr driver's numbers (major {@link #MSR_MAJOR}, minor the
     * CPU), made with {@code mknod}: needs root, and a file system that allows device nodes. Opening it reaches the
     * machine's msr driver (ENXIO where it is not loaded), or, in a container, the runtime's device cgroup first, which
     * refuses every device it was not told to allow (EPERM). Never made under the machine's own {@code /dev}.
     */
    public Path msrDevice(int cpu) {
        Path file = dev().resolve("cpu/" + cpu + "/msr");
        if (file.toAbsolutePath().normalize().startsWith(Path.of("/dev"))) {
            throw new IllegalArgumentException("refusing to make a device node under the machine's /dev: " + file);
        }
        createDirectories(file.getParent());
        try {
            Process mknod = new ProcessBuilder("mknod", file.toString(), "c", Integer.toString(MSR_MAJOR), Integer.toString(cpu))
                    .redirectErrorStream(true).start();
            String out = new String(mknod.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (mknod.waitFor() != 0) {
                throw new IllegalStateException("mknod " + file + " c " + MSR_MAJOR + " " + cpu + " failed (needs root): " + out.strip());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return file;
    }

    public void topology(int cpu, int physicalPackageId) {
        write(sys().resolve("devices/system/cpu/cpu" + cpu + "/topology/physical_package_id"), Integer.toString(physicalPackageId));
    }

    /** A cpufreq policy; returns its {@code scaling_max_freq} file. */
    public Path cpufreqPolicy(int id, long minKHz, long maxKHz, long scalingMaxKHz) {
        Path dir = sys().resolve("devices/system/cpu/cpufreq/policy" + id);
        write(dir.resolve("cpuinfo_min_freq"), Long.toString(minKHz));
        write(dir.resolve("cpuinfo_max_freq"), Long.toString(maxKHz));
        write(dir.resolve("scaling_max_freq"), Long.toString(scalingMaxKHz));
        return dir.resolve("scaling_max_freq");
    }

    /** A {@code proc/cpuinfo} of two processors of this vendor and model (with a clock speed, which a kubelet needs). */
    public void cpuinfo(String vendorId, String modelName) {
        cpuinfo(vendorId, modelName, 6, 143);
    }

    /** {@link #cpuinfo(String, String)} with the family and model numbers {@code /proc/cpuinfo} prints (decimal). */
    public void cpuinfo(String vendorId, String modelName, int family, int model) {
        String processor = "processor\t: %d\nvendor_id\t: " + vendorId + "\ncpu family\t: " + family + "\nmodel\t\t: " + model
                + "\nmodel name\t: " + modelName + "\ncpu MHz\t\t: 2400.000\nflags\t\t: fpu msr\n\n";
        write(proc().resolve("cpuinfo"), processor.formatted(0) + processor.formatted(1));
    }

    /**
     * The powercap control type the kernel's RAPL MSR driver registers ({@code powercap_register_control_type(NULL,
     * "intel-rapl", NULL)} in drivers/powercap/intel_rapl_msr.c): the same name on Intel and on AMD and Hygon, which
     * that driver serves too. No kernel registers an {@code amd-rapl} control type.
     */
    public static final String RAPL_CONTROL_TYPE = "intel-rapl";

    /**
     * {@code max_energy_range_uj} of an AMD package: the 32-bit energy status register at AMD's default energy unit of
     * 2^-16 J (MSR 0xC0010299 bits 12:8 = 16), as {@code rapl_unit_xlate} computes it (0xFFFFFFFF × 15258 pJ / 1000).
     */
    public static final long AMD_MAX_ENERGY_RANGE_UJ = 65_533_611_187L;

    /**
     * An AMD (or Hygon) package as the kernel's RAPL driver registers it on families 17h, 19h and 1Ah (Hygon 18h),
     * modelled on drivers/powercap/intel_rapl_msr.c and intel_rapl_common.c: zone {@code intel-rapl:N} named
     * {@code package-N} with {@code energy_uj} and {@code max_energy_range_uj} (the package energy status register,
     * 0xC001029B) and <em>no</em> {@code constraint_*} files, because AMD's RAPL has no power-limit register and
     * {@code rapl_detect_powerlimit} drops every power limit whose register cannot be read; {@code enabled} reads 0,
     * because {@code get_domain_enable} fails without a power limit and {@code enabled_show} (powercap_sys.c) prints 0
     * then; and the sub-zone {@code intel-rapl:N:0} named {@code core} (the core energy status register, 0xC001029A),
     * likewise energy only. Returns the package zone's path under {@link #powercap()}.
     */
    public Path amdPackage(int n, long energyUj) {
        String id = RAPL_CONTROL_TYPE + ":" + Integer.toHexString(n);
        Path zone = zone(id, "package-" + n, energyUj);
        write(zone.resolve("max_energy_range_uj"), Long.toString(AMD_MAX_ENERGY_RANGE_UJ));
        write(zone.resolve("enabled"), "0");
        Path core = zone(id + ":0", "core", energyUj / 2);
        write(core.resolve("max_energy_range_uj"), Long.toString(AMD_MAX_ENERGY_RANGE_UJ));
        write(core.resolve("enabled"), "0");
        return zone;
    }

    /**
     * The hwmon device of AMD's {@code amd_energy} driver: in mainline from 5.8, removed in 5.13 (commit 9049572fb145,
     * "hwmon: Remove amd_energy driver") and since then only an out-of-tree module from AMD. {@code name} is
     * {@code amd_energy}; channel i has {@code energy<i+1>_input} (µJ) and {@code energy<i+1>_label}: {@code Ecore000},
     * {@code Ecore001}, ... for the cores, then {@code Esocket0}, ... for the sockets. Returns its directory.
     */
    public Path amdEnergyHwmon(int hwmon, int sockets, int cores) {
        Path dir = sys().resolve("class/hwmon/hwmon" + hwmon);
        write(dir.resolve("name"), "amd_energy");
        int channel = 1;
        for (int core = 0; core < cores; core++, channel++) {
            write(dir.resolve("energy" + channel + "_label"), "Ecore%03d".formatted(core));
            write(dir.resolve("energy" + channel + "_input"), "1000000");
        }
        for (int socket = 0; socket < sockets; socket++, channel++) {
            write(dir.resolve("energy" + channel + "_label"), "Esocket" + socket);
            write(dir.resolve("energy" + channel + "_input"), "50000000");
        }
        return dir;
    }

    /**
     * A cpufreq scaling driver, with the files it adds to each {@code policyN} beside the cpufreq core's, and what
     * {@code scaling_driver} reads. Modelled on drivers/cpufreq/acpi-cpufreq.c, amd-pstate.c and intel_pstate.c.
     */
    public enum CpufreqDriver {
        /** acpi-cpufreq: ACPI P-states, a frequency table ({@code scaling_available_frequencies}), {@code bios_limit}. */
        ACPI_CPUFREQ("acpi-cpufreq", null, "ondemand",
                List.of("scaling_available_frequencies", "cpuinfo_cur_freq", "bios_limit")),
        /** amd-pstate in passive mode ({@code amd_pstate=passive}): a governor picks the desired performance. */
        AMD_PSTATE_PASSIVE("amd-pstate", "passive", "schedutil", List.of("amd_pstate_highest_perf", "amd_pstate_max_freq",
                "amd_pstate_lowest_nonlinear_freq", "amd_pstate_hw_prefcore", "amd_pstate_prefcore_ranking")),
        /** amd-pstate in guided mode ({@code amd_pstate=guided}): the firmware picks within the governor's range. */
        AMD_PSTATE_GUIDED("amd-pstate", "guided", "schedutil", List.of("amd_pstate_highest_perf", "amd_pstate_max_freq",
                "amd_pstate_lowest_nonlinear_freq", "amd_pstate_hw_prefcore", "amd_pstate_prefcore_ranking")),
        /**
         * amd-pstate in active mode ({@code amd_pstate=active}, the {@code amd-pstate-epp} driver): the firmware picks,
         * steered by the energy-performance preference; {@code scaling_max_freq} still bounds it (the policy's max
         * becomes the CPPC request's max_perf, {@code amd_pstate_epp_update_limit}).
         */
        AMD_PSTATE_ACTIVE("amd-pstate-epp", "active", "powersave", List.of("amd_pstate_highest_perf", "amd_pstate_max_freq",
                "amd_pstate_lowest_nonlinear_freq", "amd_pstate_hw_prefcore", "amd_pstate_prefcore_ranking",
                "energy_performance_preference", "energy_performance_available_preferences")),
        /** intel_pstate in active mode (HWP): {@code scaling_max_freq} bounds the hardware's choice. */
        INTEL_PSTATE_ACTIVE("intel_pstate", "active", "powersave", List.of("base_frequency", "energy_performance_preference",
                "energy_performance_available_preferences"));

        private final String scalingDriver;
        private final String mode;
        private final String governor;
        private final List<String> policyFiles;

        CpufreqDriver(String scalingDriver, String mode, String governor, List<String> policyFiles) {
            this.scalingDriver = scalingDriver;
            this.mode = mode;
            this.governor = governor;
            this.policyFiles = policyFiles;
        }

        /** What {@code scaling_driver} reads. */
        public String scalingDriver() {
            return scalingDriver;
        }

        /** The files this driver adds to a policy's directory. */
        public List<String> policyFiles() {
            return policyFiles;
        }
    }

    /**
     * A cpufreq policy of this driver, covering CPU {@code id}: the cpufreq core's files (cpuinfo_min/max_freq,
     * scaling_min/max_freq, scaling_cur_freq, scaling_driver, scaling_governor, affected_cpus, related_cpus) and the
     * driver's own, with the driver's global switch ({@code cpu/amd_pstate/status}, {@code cpu/intel_pstate/status},
     * {@code cpufreq/boost}). Returns its {@code scaling_max_freq} file.
     */
    public Path cpufreqPolicy(int id, CpufreqDriver driver, long minKHz, long maxKHz, long scalingMaxKHz) {
        Path maxFile = cpufreqPolicy(id, minKHz, maxKHz, scalingMaxKHz);
        Path dir = maxFile.getParent();
        write(dir.resolve("scaling_min_freq"), Long.toString(minKHz));
        write(dir.resolve("scaling_cur_freq"), Long.toString(scalingMaxKHz));
        write(dir.resolve("scaling_driver"), driver.scalingDriver);
        write(dir.resolve("scaling_governor"), driver.governor);
        write(dir.resolve("affected_cpus"), Integer.toString(id));
        write(dir.resolve("related_cpus"), Integer.toString(id));
        for (String file : driver.policyFiles) {
            write(dir.resolve(file), switch (file) {
                case "scaling_available_frequencies" -> maxKHz + " " + (minKHz + maxKHz) / 2 + " " + minKHz;
                case "cpuinfo_cur_freq", "bios_limit", "amd_pstate_max_freq" -> Long.toString(maxKHz);
                case "base_frequency" -> Long.toString((minKHz + maxKHz) / 2);
                case "amd_pstate_lowest_nonlinear_freq" -> Long.toString(Math.max(minKHz, maxKHz / 3));
                case "amd_pstate_highest_perf", "amd_pstate_prefcore_ranking" -> "255";
                case "amd_pstate_hw_prefcore" -> "enabled";
                case "energy_performance_preference" -> "balance_performance";
                case "energy_performance_available_preferences" -> "default performance balance_performance balance_power power";
                default -> throw new IllegalStateException(file);
            });
        }
        Path cpu = sys().resolve("devices/system/cpu");
        switch (driver) {
            case ACPI_CPUFREQ -> write(cpu.resolve("cpufreq/boost"), "1");
            case AMD_PSTATE_PASSIVE, AMD_PSTATE_GUIDED, AMD_PSTATE_ACTIVE -> write(cpu.resolve("amd_pstate/status"), driver.mode);
            case INTEL_PSTATE_ACTIVE -> write(cpu.resolve("intel_pstate/status"), driver.mode);
        }
        return maxFile;
    }

    public void cgroupV2() {
        write(sys().resolve("fs/cgroup/cgroup.controllers"), "cpuset cpu io memory pids");
    }

    /** Writes {@code value} and a newline, creating directories. */
    public static void write(Path file, String value) {
        createDirectories(file.getParent());
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

    private static void createDirectories(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
