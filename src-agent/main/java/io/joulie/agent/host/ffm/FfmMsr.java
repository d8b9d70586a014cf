package io.joulie.agent.host.ffm;

import io.joulie.agent.host.CpuVendor;
import io.joulie.agent.host.HostRoots;
import io.joulie.agent.host.Msr;
import io.joulie.agent.host.PackageMsr;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * {@link Msr} on {@code <dev>/cpu/N/msr}: each register read is one 8-byte pread at the register's
 * address on a descriptor opened once per package (the package's lowest-numbered CPU, by
 * {@code <sys>/devices/system/cpu/cpuN/topology/physical_package_id}; package 0 when topology is absent).
 */
public final class FfmMsr implements Msr {
    public static final long INTEL_RAPL_POWER_UNIT = 0x606;
    public static final long INTEL_PKG_POWER_LIMIT = 0x610;
    public static final long INTEL_PKG_ENERGY_STATUS = 0x611;
    /** MSR_PKG_POWER_INFO: the thermal spec power (TDP) in bits 14:0. */
    public static final long INTEL_PKG_POWER_INFO = 0x614;
    public static final long AMD_RAPL_POWER_UNIT = 0xC0010299L;
    public static final long AMD_PKG_ENERGY_STATUS = 0xC001029BL;

    /** A vendor's RAPL register addresses; AMD has no package power limit nor power info register. */
    private record Registers(long powerUnit, long energyStatus, OptionalLong powerLimit, OptionalLong powerInfo) {
    }

    private final Registers registers;
    private final SortedMap<Integer, Path> devices;
    private final Opener opener;
    private final Map<Integer, NativeFile> files = new HashMap<>();

    private FfmMsr(Registers registers, SortedMap<Integer, Path> devices, Opener opener) {
        this.registers = registers;
        this.devices = devices;
        this.opener = opener;
    }

    /** How a device is opened: {@link NativeFile#open} for reading; a test injects the errno a host would give. */
    @FunctionalInterface
    interface Opener {
        NativeFile open(Path device) throws NativeIoException;
    }

    /**
     * {@link Msr#absent()} for CPUs other than Intel and AMD, or when no {@code <dev>/cpu/N/msr} exists;
     * {@link Msr#unavailable(String)} when the first package's device exists but cannot be opened (the probe at start).
     */
    public static Msr open(HostRoots roots, CpuVendor vendor) throws IOException {
        return open(roots, vendor, device -> NativeFile.open(device, NativeFile.Mode.READ));
    }

    static Msr open(HostRoots roots, CpuVendor vendor, Opener opener) throws IOException {
        Registers registers = switch (vendor) {
            case INTEL -> new Registers(INTEL_RAPL_POWER_UNIT, INTEL_PKG_ENERGY_STATUS, OptionalLong.of(INTEL_PKG_POWER_LIMIT),
                    OptionalLong.of(INTEL_PKG_POWER_INFO));
            case AMD -> new Registers(AMD_RAPL_POWER_UNIT, AMD_PKG_ENERGY_STATUS, OptionalLong.empty(), OptionalLong.empty());
            case OTHER -> null;
        };
        if (registers == null) {
            return Msr.absent();
        }
        SortedMap<Integer, Path> devices = devicesByPackage(roots);
        if (devices.isEmpty()) {
            return Msr.absent();
        }
        FfmMsr msr = new FfmMsr(registers, devices, opener);
        try {
            msr.file(devices.firstKey());
        } catch (NativeIoException e) {
            return Msr.unavailable(whyUnavailable(e));
        }
        return msr;
    }

    /**
     * What a failed open of an MSR device means, and what would make it work. EPERM in a container is the runtime's
     * device cgroup (a non-privileged container may open only the device nodes it was allowed, and the msr devices are
     * not among the defaults), or a missing CAP_SYS_RAWIO, which the msr driver requires; ENXIO or ENODEV: the device
     * node is there but no msr driver behind it.
     */
    static String whyUnavailable(NativeIoException e) {
        String what = "MSR reads refused (" + e.getMessage() + "): ";
        String off = "MSR telemetry is off (TDP, firmware-lock cross-check, RAPL power unit); capping goes on through powercap";
        return switch (e.error().orElse(Errno.EIO)) {
            case EPERM -> what + "the container runtime's device cgroup does not allow /dev/cpu/*/msr (or CAP_SYS_RAWIO is "
                    + "missing). " + off + ". Only a privileged container, or one that a device plugin was told to give "
                    + "/dev/cpu/*/msr, may open them (docs/install.md, decision 128)";
            case EACCES -> what + "the device's mode or a nodev mount refuses it. " + off;
            case ENXIO, ENODEV -> "MSR devices not readable (" + e.getMessage() + "): the msr driver is not loaded "
                    + "(modprobe msr on the node). " + off;
            default -> "MSR devices not readable (" + e.getMessage() + "). " + off;
        };
    }

    private static SortedMap<Integer, Path> devicesByPackage(HostRoots roots) throws IOException {
        Path cpuDir = roots.dev().resolve("cpu");
        SortedMap<Integer, Path> devices = new TreeMap<>();
        if (!Files.isDirectory(cpuDir)) {
            return devices;
        }
        List<Integer> cpus;
        try (Stream<Path> entries = Files.list(cpuDir)) {
            cpus = entries.map(p -> p.getFileName().toString()).filter(n -> n.matches("\\d+"))
                    .map(Integer::valueOf).filter(cpu -> Files.exists(cpuDir.resolve(cpu + "/msr"))).sorted().toList();
        }
        for (int cpu : cpus) {
            Path packageId = roots.sys().resolve("devices/system/cpu/cpu" + cpu + "/topology/physical_package_id");
            int pkg = Files.exists(packageId) ? (int) NativeFile.readDecimal(packageId) : 0;
            devices.putIfAbsent(pkg, cpuDir.resolve(cpu + "/msr"));
        }
        return devices;
    }

    @Override
    public List<Integer> packages() {
        return List.copyOf(devices.keySet());
    }

    @Override
    public Optional<PackageMsr> read(int packageIndex) throws IOException {
        NativeFile file = file(packageIndex);
        if (file == null) {
            return Optional.empty();
        }
        try {
            PackageMsr.Units units = PackageMsr.Units.decode(file.readLong(registers.powerUnit()));
            long energy = file.readLong(registers.energyStatus()) & 0xFFFF_FFFFL;
            Optional<PackageMsr.PowerLimit> limit = registers.powerLimit().isPresent()
                    ? Optional.of(PackageMsr.PowerLimit.decode(file.readLong(registers.powerLimit().getAsLong()), units))
                    : Optional.empty();
            return Optional.of(new PackageMsr(units, energy, limit, tdp(file, units)));
        } catch (NativeIoException e) {
            // The msr module may have been reloaded or the CPU hot-plugged: reopen next time.
            synchronized (files) {
                files.remove(packageIndex, file);
            }
            file.close();
            throw e;
        }
    }

    /** The TDP, if the CPU has the power info register: a part without it answers EIO, which proves nothing else. */
    private OptionalDouble tdp(NativeFile file, PackageMsr.Units units) {
        if (registers.powerInfo().isEmpty()) {
            return OptionalDouble.empty();
        }
        try {
            return PackageMsr.tdp(file.readLong(registers.powerInfo().getAsLong()), units);
        } catch (IOException e) {
            return OptionalDouble.empty();
        }
    }

    private NativeFile file(int packageIndex) throws NativeIoException {
        Path device = devices.get(packageIndex);
        if (device == null) {
            return null;
        }
        synchronized (files) {
            NativeFile file = files.get(packageIndex);
            if (file == null) {
                file = opener.open(device);
                files.put(packageIndex, file);
            }
            return file;
        }
    }

    @Override
    public void close() {
        synchronized (files) {
            files.values().forEach(NativeFile::close);
            files.clear();
        }
    }
}
