package io.joulie.agent.host.ffm;

import io.joulie.agent.host.CapResult;
import io.joulie.agent.host.CapResult.Outcome;
import io.joulie.agent.host.LimitSnapshot;
import io.joulie.agent.host.Msr;
import io.joulie.agent.host.PackageMsr;
import io.joulie.agent.host.PowerConstraint;
import io.joulie.agent.host.Powercap;
import io.joulie.agent.host.PowercapZone;
import io.joulie.agent.host.ZoneReading;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@link Powercap} on {@code <sys>/class/powercap}. Packages are the top-level {@code intel-rapl:N} and
 * {@code amd-rapl:N} zones except {@code psys} (the platform zone, which would count the packages twice);
 * {@code N} is taken as the physical package id for the MSR lock cross-check.
 */
public final class FfmPowercap implements Powercap {
    private static final Pattern ZONE = Pattern.compile("((?:intel|amd)-rapl):(\\d+)(?::(\\d+))?");
    private static final Pattern CONSTRAINT = Pattern.compile("constraint_(\\d+)_power_limit_uw");
    private static final String PLATFORM_ZONE = "psys";
    private static final String FIRMWARE_LOCK = "locked by firmware (MSR 0x610 bit " + PackageMsr.PowerLimit.LOCK_BIT + ")";

    private final Path classDir;
    private final Msr msr;
    private final List<PowercapZone> packages;
    private final List<LimitSnapshot> snapshot;
    private final Map<String, NativeFile> energyFiles = new HashMap<>();

    private FfmPowercap(Path classDir, Msr msr, List<PowercapZone> packages) {
        this.classDir = classDir;
        this.msr = msr;
        this.packages = packages;
        this.snapshot = packages.stream().flatMap(p -> recordLongTerm(p).stream()).toList();
    }

    /**
     * Discovers the zones and records the long_term limits found now ({@link #snapshot()}); {@link Powercap#absent()}
     * when there is no package zone. {@code msr} cross-checks the firmware lock ({@link Msr#absent()}: no check).
     */
    public static Powercap open(Path sysRoot, Msr msr) throws IOException {
        Path classDir = sysRoot.resolve("class/powercap");
        if (!Files.isDirectory(classDir)) {
            return Powercap.absent();
        }
        List<PowercapZone> packages = discover(classDir);
        return packages.isEmpty() ? Powercap.absent() : new FfmPowercap(classDir, msr, packages);
    }

    private static List<PowercapZone> discover(Path classDir) throws IOException {
        List<Matcher> ids;
        try (Stream<Path> entries = Files.list(classDir)) {
            ids = entries.filter(Files::isDirectory).map(p -> ZONE.matcher(p.getFileName().toString()))
                    .filter(Matcher::matches).toList();
        }
        Map<String, List<Matcher>> subZoneIds = new HashMap<>();
        for (Matcher id : ids) {
            if (id.group(3) != null) {
                subZoneIds.computeIfAbsent(id.group(1) + ":" + id.group(2), k -> new ArrayList<>()).add(id);
            }
        }
        List<PowercapZone> packages = new ArrayList<>();
        for (Matcher id : ids) {
            if (id.group(3) == null) {
                List<Matcher> subIds = subZoneIds.getOrDefault(id.group(), List.of()).stream()
                        .sorted(Comparator.comparingInt(m -> Integer.parseInt(m.group(3)))).toList();
                List<PowercapZone> subZones = new ArrayList<>();
                for (Matcher sub : subIds) {
                    subZones.add(zone(classDir, sub, List.of()));
                }
                PowercapZone zone = zone(classDir, id, subZones);
                if (!PLATFORM_ZONE.equals(zone.name())) {
                    packages.add(zone);
                }
            }
        }
        packages.sort(Comparator.comparingInt(PowercapZone::packageIndex));
        return List.copyOf(packages);
    }

    private static PowercapZone zone(Path classDir, Matcher id, List<PowercapZone> subZones) throws IOException {
        Path dir = classDir.resolve(id.group());
        return new PowercapZone(id.group(), optionalText(dir.resolve("name")).orElse(id.group()),
                Integer.parseInt(id.group(2)), optionalDecimal(dir.resolve("max_energy_range_uj")).orElse(0), subZones);
    }

    private Optional<LimitSnapshot> recordLongTerm(PowercapZone pkg) {
        try {
            return readConstraints(dir(pkg)).stream().filter(PowerConstraint::isLongTerm).findFirst()
                    .map(c -> new LimitSnapshot(pkg.id(), c.index(), c.powerLimitUw()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    @Override
    public List<PowercapZone> packages() {
        return packages;
    }

    @Override
    public ZoneReading read(PowercapZone zone) throws IOException {
        Path dir = dir(zone);
        boolean enabled = optionalDecimal(dir.resolve("enabled")).orElse(1) != 0;
        return new ZoneReading(zone.id(), enabled, energyUj(zone), readConstraints(dir));
    }

    @Override
    public long energyUj(PowercapZone zone) throws IOException {
        NativeFile file;
        synchronized (energyFiles) {
            file = energyFiles.get(zone.id());
            if (file == null) {
                file = NativeFile.open(dir(zone).resolve("energy_uj"), NativeFile.Mode.READ);
                energyFiles.put(zone.id(), file);
            }
        }
        try {
            return file.readDecimal();
        } catch (NativeIoException e) {
            // The zone may have gone away and come back (intel_rapl reloaded, hotplug): reopen next time.
            synchronized (energyFiles) {
                energyFiles.remove(zone.id(), file);
            }
            file.close();
            throw e;
        }
    }

    @Override
    public boolean writable() {
        List<Target> targets;
        try {
            targets = prepareAll();
        } catch (Stop stop) {
            return false;
        }
        try {
            for (Target target : targets) {
                bounded(target, 1); // bounds that block every cap (no known maximum, min above max)
            }
            return true;
        } catch (Stop stop) {
            return false;
        } finally {
            targets.forEach(t -> t.file().close());
        }
    }

    @Override
    public CapResult applyNodeCap(double watts) {
        double perPackageUw = watts / packages.size() * 1e6;
        if (!Double.isFinite(watts) || !(perPackageUw >= 1)) {
            return result(Outcome.BLOCKED, "invalid node cap " + watts + " W: must be finite and at least 1 uW per package",
                    Map.of());
        }
        long requestedUw = Math.round(perPackageUw);
        List<Target> targets;
        try {
            targets = prepareAll();
        } catch (Stop stop) {
            return result(stop.outcome, stop.getMessage(), Map.of());
        }
        try {
            List<String> notes = new ArrayList<>();
            Map<String, Long> values = new LinkedHashMap<>();
            for (Target target : targets) {
                long value = bounded(target, requestedUw);
                if (value != requestedUw) {
                    notes.add(target.zone().id() + ": " + requestedUw + " uW clamped to hardware "
                            + (value > requestedUw ? "min " : "max ") + value + " uW");
                }
                values.put(target.zone().id(), value);
            }
            writeAll(targets, values);
            StringBuilder message = new StringBuilder("applied node cap ").append(format(watts)).append(" W as long_term limit on ")
                    .append(targets.size()).append(targets.size() == 1 ? " package" : " packages");
            notes.forEach(note -> message.append("; ").append(note));
            return result(Outcome.APPLIED, message.toString(), values);
        } catch (Stop stop) {
            return result(stop.outcome, stop.getMessage(), Map.of());
        } finally {
            targets.forEach(t -> t.file().close());
        }
    }

    @Override
    public List<LimitSnapshot> snapshot() {
        return snapshot;
    }

    @Override
    public CapResult restore() {
        Outcome outcome = Outcome.APPLIED;
        List<String> failures = new ArrayList<>();
        Map<String, Long> written = new LinkedHashMap<>();
        for (LimitSnapshot limit : snapshot) {
            Path file = classDir.resolve(limit.zoneId()).resolve(limitFile(limit.constraintIndex()));
            try {
                NativeFile.writeText(file, Long.toString(limit.powerLimitUw()));
                written.put(limit.zoneId(), limit.powerLimitUw());
            } catch (IOException e) {
                failures.add(limit.zoneId() + ": " + e.getMessage());
                outcome = outcome.compareTo(outcomeOf(e)) >= 0 ? outcome : outcomeOf(e);
            }
        }
        String message = failures.isEmpty()
                ? "restored the long_term limits found at start on " + written.size() + " packages"
                : "restore failed: " + String.join("; ", failures);
        return result(outcome, message, outcome == Outcome.APPLIED ? written : Map.of());
    }

    @Override
    public void close() {
        synchronized (energyFiles) {
            energyFiles.values().forEach(NativeFile::close);
            energyFiles.clear();
        }
    }

    /** A package's long_term limit file, opened for writing, with the constraint as read just before. */
    private record Target(PowercapZone zone, PowerConstraint constraint, NativeFile file) {
    }

    /** Why an apply stops before or while writing; nothing written stays written. */
    private static final class Stop extends Exception {
        final Outcome outcome;

        Stop(Outcome outcome, String message) {
            super(message, null, false, false);
            this.outcome = outcome;
        }
    }

    /** Opens every package's long_term limit for writing, or stops at the first that cannot be written. */
    private List<Target> prepareAll() throws Stop {
        List<Target> targets = new ArrayList<>();
        try {
            for (PowercapZone pkg : packages) {
                targets.add(prepare(pkg));
            }
            return targets;
        } catch (Stop stop) {
            targets.forEach(t -> t.file().close());
            throw stop;
        }
    }

    private Target prepare(PowercapZone pkg) throws Stop {
        Path dir = dir(pkg);
        PowerConstraint longTerm;
        try {
            longTerm = readConstraints(dir).stream().filter(PowerConstraint::isLongTerm).findFirst()
                    .orElseThrow(() -> new Stop(Outcome.BLOCKED, pkg.id() + ": no long_term constraint"));
        } catch (IOException e) {
            throw new Stop(Outcome.ERROR, pkg.id() + ": cannot read constraints: " + e.getMessage());
        }
        if (lockedByFirmware(pkg)) {
            throw new Stop(Outcome.BLOCKED, pkg.id() + ": long_term limit " + FIRMWARE_LOCK);
        }
        try {
            return new Target(pkg, longTerm, NativeFile.open(dir.resolve(limitFile(longTerm.index())), NativeFile.Mode.WRITE));
        } catch (NativeIoException e) {
            throw new Stop(outcomeOf(e), pkg.id() + ": long_term limit not writable: " + e.getMessage());
        }
    }

    /** The RAPL power-limit field is 15 bits wide, in power units (MSR 0x606). */
    static final long RAPL_LIMIT_FIELD_MAX = 0x7FFF;

    /**
     * {@code requestedUw} clamped to the package's bounds. A bound of 0 or less counts as missing. Without
     * a reported maximum, the largest value the 15-bit RAPL field holds (0x7FFF power units from the MSR)
     * is the maximum; without a readable MSR either, the cap is blocked. Also blocks when the minimum is
     * above the maximum, or the clamped value would be below 1 uW.
     */
    private long bounded(Target target, long requestedUw) throws Stop {
        PowercapZone pkg = target.zone();
        PowerConstraint constraint = target.constraint();
        OptionalLong reportedMax = constraint.hardwareMaxUw();
        long maxUw = reportedMax.isPresent() ? reportedMax.getAsLong() : fieldMaxUw(pkg)
                .orElseThrow(() -> new Stop(Outcome.BLOCKED, pkg.id() + ": no hardware maximum known (max_power_uw "
                        + "missing or not positive, and the RAPL power unit MSR is not readable)"));
        OptionalLong minUw = constraint.hardwareMinUw();
        if (minUw.isPresent() && minUw.getAsLong() > maxUw) {
            throw new Stop(Outcome.BLOCKED, pkg.id() + ": hardware min " + minUw.getAsLong() + " uW is above max " + maxUw + " uW");
        }
        long value = constraint.clamp(requestedUw, maxUw);
        if (value < 1) {
            throw new Stop(Outcome.BLOCKED, pkg.id() + ": clamped limit " + value + " uW is below 1 uW");
        }
        return value;
    }

    /** 0x7FFF x the package's power unit, in uW; empty when the MSR cannot be read. */
    private OptionalLong fieldMaxUw(PowercapZone pkg) {
        try {
            Optional<PackageMsr> registers = msr.read(pkg.packageIndex());
            if (registers.isEmpty()) {
                return OptionalLong.empty();
            }
            long uw = (long) Math.floor(RAPL_LIMIT_FIELD_MAX * registers.get().units().powerWatts() * 1e6);
            return uw > 0 ? OptionalLong.of(uw) : OptionalLong.empty();
        } catch (IOException e) {
            return OptionalLong.empty();
        }
    }

    /** The MSR cross-check; an unreadable MSR proves nothing, so it does not block. */
    private boolean lockedByFirmware(PowercapZone pkg) {
        try {
            return msr.read(pkg.packageIndex()).flatMap(PackageMsr::powerLimit).map(PackageMsr.PowerLimit::locked).orElse(false);
        } catch (IOException e) {
            return false;
        }
    }

    /** Writes every value, or, when one write fails, writes the previous limits back to those already written. */
    private static void writeAll(List<Target> targets, Map<String, Long> values) throws Stop {
        for (int i = 0; i < targets.size(); i++) {
            Target target = targets.get(i);
            try {
                target.file().writeText(Long.toString(values.get(target.zone().id())));
            } catch (IOException e) {
                StringBuilder message = new StringBuilder(target.zone().id()).append(": ").append(e.getMessage());
                for (Target written : targets.subList(0, i)) {
                    try {
                        written.file().writeText(Long.toString(written.constraint().powerLimitUw()));
                        message.append("; ").append(written.zone().id()).append(" rolled back to ")
                                .append(written.constraint().powerLimitUw()).append(" uW");
                    } catch (IOException rollback) {
                        message.append("; rollback of ").append(written.zone().id()).append(" failed: ").append(rollback.getMessage());
                    }
                }
                throw new Stop(outcomeOf(e), message.toString());
            }
        }
    }

    /** The long_term limits as they are now (a zone whose limit cannot be read is left out). */
    private Map<String, Long> observed() {
        Map<String, Long> observed = new LinkedHashMap<>();
        for (PowercapZone pkg : packages) {
            recordLongTerm(pkg).ifPresent(limit -> observed.put(pkg.id(), limit.powerLimitUw()));
        }
        return observed;
    }

    private CapResult result(Outcome outcome, String message, Map<String, Long> written) {
        return new CapResult(outcome, message, written, observed());
    }

    private static Outcome outcomeOf(IOException e) {
        return e instanceof NativeIoException n && n.isWriteRefusal() ? Outcome.BLOCKED : Outcome.ERROR;
    }

    private static List<PowerConstraint> readConstraints(Path dir) throws IOException {
        List<Integer> indexes;
        try (Stream<Path> entries = Files.list(dir)) {
            indexes = entries.map(p -> CONSTRAINT.matcher(p.getFileName().toString())).filter(Matcher::matches)
                    .map(m -> Integer.valueOf(m.group(1))).sorted().toList();
        }
        List<PowerConstraint> constraints = new ArrayList<>();
        for (int i : indexes) {
            String prefix = "constraint_" + i + "_";
            constraints.add(new PowerConstraint(i, optionalText(dir.resolve(prefix + "name")).orElse(""),
                    NativeFile.readDecimal(dir.resolve(limitFile(i))),
                    optionalDecimal(dir.resolve(prefix + "min_power_uw")),
                    optionalDecimal(dir.resolve(prefix + "max_power_uw")),
                    optionalDecimal(dir.resolve(prefix + "time_window_us"))));
        }
        return constraints;
    }

    private static String limitFile(int constraintIndex) {
        return "constraint_" + constraintIndex + "_power_limit_uw";
    }

    private Path dir(PowercapZone zone) {
        return classDir.resolve(zone.id());
    }

    private static Optional<String> optionalText(Path file) throws IOException {
        try {
            return Optional.of(NativeFile.readText(file));
        } catch (NativeIoException e) {
            if (unreported(e)) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private static OptionalLong optionalDecimal(Path file) throws IOException {
        try {
            return OptionalLong.of(NativeFile.readDecimal(file));
        } catch (NativeIoException e) {
            if (unreported(e)) {
                return OptionalLong.empty();
            }
            throw e;
        }
    }

    /** The file is absent, or the driver does not report the value (max_power_uw of some constraints). */
    private static boolean unreported(NativeIoException e) {
        return e.error().filter(errno -> errno == Errno.ENOENT || errno == Errno.ENODATA || errno == Errno.EOPNOTSUPP).isPresent();
    }

    private static String format(double watts) {
        return BigDecimal.valueOf(watts).stripTrailingZeros().toPlainString();
    }
}
