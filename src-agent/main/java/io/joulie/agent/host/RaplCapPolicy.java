package io.joulie.agent.host;

import io.joulie.agent.host.CapResult.Outcome;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * The node cap on RAPL, whatever moves the bytes: each of the P packages gets watts / P (or the percent of its
 * long-term maximum), shared evenly over its dies when the kernel shows one zone per die, as its long_term limit,
 * bounded by what the zone allows; a package share below the per-package floor is not written. Every zone's limit is opened for writing before any is written, and a
 * write that fails puts back what was already written, so the previous limits stay on any failure. A zone whose
 * limit is not enforced ({@code enabled} = 0) blocks the cap. The originals (the limits found before the agent's
 * first write: read at start, or given by an earlier agent process of the same boot) are written back by
 * {@link #restore()}. The firmware lock (MSR 0x610 bit 63) is cross-checked when the MSR can be read; an unreadable
 * MSR proves nothing and does not block.
 */
final class RaplCapPolicy {
    /** The RAPL power-limit field is 15 bits wide, in power units (MSR 0x606). */
    static final long RAPL_LIMIT_FIELD_MAX = 0x7FFF;
    /** 0x7FFF power units of 1/8 W (the usual RAPL power unit), uW: a restore's upper bound when the MSR cannot be read. */
    static final long FIELD_MAX_AT_EIGHTH_WATT_UW = RAPL_LIMIT_FIELD_MAX * 125_000;
    private static final Logger LOG = Logger.getLogger(RaplCapPolicy.class);
    /**
     * A package zone without any constraint: the kernel shows a power limit only where it can read its register
     * ({@code rapl_detect_powerlimit}, drivers/powercap/intel_rapl_common.c), and AMD's and Hygon's RAPL (families 17h,
     * 19h, 1Ah; 18h) has energy status registers only, so their zones count energy and take no limit.
     */
    static final String NO_POWER_LIMIT = "no power limit, only an energy counter (no constraint files: the kernel shows none "
            + "where the package has no RAPL power-limit register, as on AMD and Hygon)";
    private static final String FIRMWARE_LOCK = "locked by firmware (MSR 0x610 bit " + PackageMsr.PowerLimit.LOCK_BIT + ")";

    private final PowercapLayout layout;
    private final SysfsFiles files;
    private final Msr msr;
    private final List<PowercapZone> packages;
    /** The zones by physical package, in package order; one zone per package, or one per die. */
    private final Map<Integer, List<PowercapZone>> byPackage;
    private final long floorUwPerPackage;
    private List<LimitSnapshot> snapshot;

    /**
     * @param floorUwPerPackage no package share below this is written (0: none); a package whose maximum is lower has
     *                          its maximum as the floor
     * @param inherited         originals an earlier agent process of this boot recorded, by zone; zones it does not
     *                          name get the long_term limit in force now ({@link #snapshot()})
     */
    RaplCapPolicy(PowercapLayout layout, SysfsFiles files, Msr msr, List<PowercapZone> packages, long floorUwPerPackage,
                  List<LimitSnapshot> inherited) {
        this.layout = layout;
        this.files = files;
        this.msr = msr;
        this.packages = packages;
        this.floorUwPerPackage = floorUwPerPackage;
        Map<Integer, List<PowercapZone>> grouped = new LinkedHashMap<>();
        packages.forEach(z -> grouped.computeIfAbsent(z.packageIndex(), k -> new ArrayList<>()).add(z));
        this.byPackage = grouped;
        Map<String, LimitSnapshot> earlier = new LinkedHashMap<>();
        inherited.forEach(l -> earlier.put(l.zoneId(), l));
        this.snapshot = packages.stream().flatMap(p -> Optional.ofNullable(earlier.get(p.id())).or(() -> longTermLimit(p)).stream())
                .toList();
    }

    /** Reads the long_term limits in force now as the originals; a limit that cannot be read fails it. */
    void recordOriginals() throws IOException {
        List<LimitSnapshot> now = new ArrayList<>();
        for (PowercapZone pkg : packages) {
            layout.longTerm(pkg).ifPresent(c -> now.add(new LimitSnapshot(pkg.id(), c.index(), c.powerLimitUw())));
        }
        snapshot = List.copyOf(now);
    }

    /** The originals: the long_term limits found before the first write. */
    List<LimitSnapshot> snapshot() {
        return snapshot;
    }

    /** Whether every package's long_term limit could be written now: the checks of {@link #apply}, writing nothing. */
    boolean writable() {
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

    CapResult apply(CapRequest cap) {
        double perPackageUw = 0;
        if (cap instanceof CapRequest.Watts(double watts)) {
            perPackageUw = watts / byPackage.size() * 1e6;
            if (!Double.isFinite(watts) || !(perPackageUw >= 1)) {
                return result(Outcome.BLOCKED, "invalid node cap " + watts + " W: must be finite and at least 1 uW per package",
                        Map.of());
            }
        } else if (cap.problem() != null) {
            return result(Outcome.BLOCKED, "invalid node cap: " + cap.problem(), Map.of());
        }
        List<Target> targets;
        try {
            targets = prepareAll();
        } catch (Stop stop) {
            return result(stop.outcome, stop.getMessage(), Map.of());
        }
        try {
            List<String> notes = new ArrayList<>();
            Map<String, Long> values = new LinkedHashMap<>();
            for (List<Target> dies : targetsByPackage(targets)) {
                long packageMaxUw = 0;
                List<Long> requested = new ArrayList<>();
                for (Target die : dies) {
                    requested.add(cap instanceof CapRequest.Percent p ? p.of(percentBase(die)) : Math.round(perPackageUw / dies.size()));
                    packageMaxUw += maxUw(die);
                }
                double shareUw = cap instanceof CapRequest.Percent ? requested.stream().mapToLong(Long::longValue).sum() : perPackageUw;
                long floorUw = Math.min(floorUwPerPackage, packageMaxUw);
                if (shareUw < floorUw) {
                    throw new Stop(Outcome.BLOCKED, (cap instanceof CapRequest.Percent
                            ? "cap " + cap.describe() + " is " + CapRequest.format(shareUw / 1e6) + " W on package " + dies.getFirst().zone().packageIndex()
                            : "node cap " + cap.describe() + " is " + CapRequest.format(shareUw / 1e6) + " W per package")
                            + ", below the floor of " + CapRequest.format(floorUw / 1e6) + " W per package");
                }
                for (int i = 0; i < dies.size(); i++) {
                    Target target = dies.get(i);
                    long requestedUw = requested.get(i);
                    long value = bounded(target, requestedUw);
                    if (value != requestedUw) {
                        notes.add(target.zone().id() + ": " + requestedUw + " uW clamped to hardware "
                                + (value > requestedUw ? "min " : "max ") + value + " uW");
                    }
                    values.put(target.zone().id(), value);
                }
            }
            writeAll(targets, values);
            StringBuilder message = new StringBuilder("applied ");
            if (cap instanceof CapRequest.Percent) {
                long sumUw = values.values().stream().mapToLong(Long::longValue).sum();
                message.append(cap.describe()).append(" of each package's maximum (node cap ").append(CapRequest.format(sumUw / 1e6))
                        .append(" W)");
            } else {
                message.append("node cap ").append(cap.describe());
            }
            message.append(" as long_term limit on ").append(byPackage.size()).append(byPackage.size() == 1 ? " package" : " packages");
            if (targets.size() > byPackage.size()) {
                message.append(" (").append(targets.size()).append(" dies)");
            }
            notes.forEach(note -> message.append("; ").append(note));
            return result(Outcome.APPLIED, message.toString(), values);
        } catch (Stop stop) {
            return result(stop.outcome, stop.getMessage(), Map.of());
        } finally {
            targets.forEach(t -> t.file().close());
        }
    }

    /** See {@link Powercap#nodeWatts}. */
    OptionalDouble nodeWatts(CapRequest cap) {
        if (cap instanceof CapRequest.Watts(double watts)) {
            return OptionalDouble.of(watts);
        }
        long sumUw = 0;
        for (PowercapZone zone : packages) {
            OptionalLong base;
            try {
                base = percentBaseUw(zone, layout.longTerm(zone).map(PowerConstraint::hardwareMaxUw).orElse(OptionalLong.empty()));
            } catch (IOException e) {
                return OptionalDouble.empty();
            }
            if (base.isEmpty()) {
                return OptionalDouble.empty();
            }
            sumUw += ((CapRequest.Percent) cap).of(base.getAsLong());
        }
        return OptionalDouble.of(sumUw / 1e6);
    }

    /**
     * The long-term maximum a percent is taken of: {@code max_power_uw}, else the TDP the package's MSR reports
     * (MSR_PKG_POWER_INFO), shared evenly over the package's dies; blocked when neither is known (the 15-bit field
     * maximum bounds a limit, it is no maximum of the package's power).
     */
    private long percentBase(Target target) throws Stop {
        return percentBaseUw(target.zone(), target.constraint().hardwareMaxUw()).orElseThrow(() -> new Stop(Outcome.BLOCKED,
                target.zone().id() + ": no long-term maximum to take a percent of (max_power_uw not reported, "
                        + "MSR_PKG_POWER_INFO not readable)"));
    }

    /** The zone's reported maximum, else its share of the package's TDP, uW. */
    private OptionalLong percentBaseUw(PowercapZone zone, OptionalLong reportedMaxUw) {
        if (reportedMaxUw.isPresent()) {
            return reportedMaxUw;
        }
        try {
            int dies = byPackage.getOrDefault(zone.packageIndex(), List.of(zone)).size();
            return msr.read(zone.packageIndex()).flatMap(m -> m.tdpWatts().isPresent()
                            ? Optional.of(Math.round(m.tdpWatts().getAsDouble() * 1e6 / dies)) : Optional.empty())
                    .map(OptionalLong::of).orElse(OptionalLong.empty());
        } catch (IOException e) {
            return OptionalLong.empty();
        }
    }

    /** The targets of each package, in package order (prepareAll keeps the zones' order). */
    private List<List<Target>> targetsByPackage(List<Target> targets) {
        Map<Integer, List<Target>> grouped = new LinkedHashMap<>();
        targets.forEach(t -> grouped.computeIfAbsent(t.zone().packageIndex(), k -> new ArrayList<>()).add(t));
        return List.copyOf(grouped.values());
    }

    /**
     * Writes the originals ({@link #snapshot()}) back; a limit that cannot be written is reported, the others are
     * restored. An original is first checked against its zone as sysfs shows it now ({@link #outOfBounds}): one that is
     * not the zone's long_term constraint, or lies outside the zone's bounds (an originals file corrupted or tampered
     * with, or of other hardware), is not written, and the zone is left as found.
     */
    CapResult restore() {
        Outcome outcome = Outcome.APPLIED;
        List<String> failures = new ArrayList<>();
        Map<String, Long> written = new LinkedHashMap<>();
        for (LimitSnapshot limit : snapshot) {
            Optional<String> refused = outOfBounds(limit);
            if (refused.isPresent()) {
                LOG.warnf("Restore: %s", refused.get());
                failures.add(refused.get());
                outcome = Outcome.BLOCKED.compareTo(outcome) > 0 ? Outcome.BLOCKED : outcome;
                continue;
            }
            try {
                files.writeText(layout.limitFile(limit.zoneId(), limit.constraintIndex()), Long.toString(limit.powerLimitUw()));
                written.put(limit.zoneId(), limit.powerLimitUw());
            } catch (IOException e) {
                failures.add(limit.zoneId() + ": " + e.getMessage());
                outcome = outcome.compareTo(outcomeOf(e)) >= 0 ? outcome : outcomeOf(e);
            }
        }
        String message = failures.isEmpty()
                ? "restored the original long_term limits on " + written.size() + (written.size() == 1 ? " zone" : " zones")
                : "restore failed: " + String.join("; ", failures);
        return result(outcome, message, outcome == Outcome.APPLIED ? written : Map.of());
    }

    /**
     * Why an original may not be written back, if it may not: its zone is not a package zone found at start, its
     * constraint is not the zone's long_term one, or its value lies outside [the zone's {@code min_power_uw} (1 uW if
     * not reported), the zone's upper bound]. The upper bound is the largest value the 15-bit RAPL field holds (0x7FFF
     * power units, from the MSR); without a readable MSR the larger of {@code max_power_uw} and
     * {@link #FIELD_MAX_AT_EIGHTH_WATT_UW} (firmware may set a long_term limit above {@code max_power_uw}, and the usual
     * power unit is 1/8 W). A value above the field would be cut to its low 15 bits by the driver.
     */
    private Optional<String> outOfBounds(LimitSnapshot limit) {
        String what = limit.zoneId() + ": the original " + limit.powerLimitUw() + " uW (constraint " + limit.constraintIndex() + ")";
        String action = " not written back, and the zone is left as found; check the kept originals and set the limit by hand";
        Optional<PowercapZone> zone = packages.stream().filter(p -> p.id().equals(limit.zoneId())).findFirst();
        if (zone.isEmpty()) {
            return Optional.of(what + " names no package zone of this host;" + action);
        }
        PowerConstraint longTerm;
        try {
            Optional<PowerConstraint> found = layout.longTerm(zone.get());
            if (found.isEmpty()) {
                return Optional.of(what + ": the zone has no long_term constraint;" + action);
            }
            longTerm = found.get();
        } catch (IOException e) {
            return Optional.of(what + ": the zone's constraints cannot be read (" + e.getMessage() + ");" + action);
        }
        if (longTerm.index() != limit.constraintIndex()) {
            return Optional.of(what + ": the zone's long_term constraint is " + longTerm.index() + ";" + action);
        }
        long minUw = Math.max(1, longTerm.hardwareMinUw().orElse(1));
        OptionalLong field = fieldMaxUw(zone.get());
        long maxUw = field.isPresent() ? field.getAsLong()
                : Math.max(longTerm.hardwareMaxUw().orElse(0), FIELD_MAX_AT_EIGHTH_WATT_UW);
        if (limit.powerLimitUw() < minUw || limit.powerLimitUw() > maxUw) {
            return Optional.of(what + " is outside the zone's bounds [" + minUw + ", " + maxUw + "] uW ("
                    + (field.isPresent() ? "the RAPL field's maximum" : "max_power_uw or the RAPL field's maximum at 1/8 W") + ");" + action);
        }
        return Optional.empty();
    }

    /** A package's long_term limit file, opened for writing, with the constraint as read just before. */
    private record Target(PowercapZone zone, PowerConstraint constraint, SysfsFiles.OpenFile file) {
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
        PowerConstraint longTerm;
        try {
            List<PowerConstraint> constraints = layout.constraints(pkg);
            if (constraints.isEmpty()) {
                throw new Stop(Outcome.BLOCKED, pkg.id() + " (" + pkg.name() + "): " + NO_POWER_LIMIT);
            }
            longTerm = constraints.stream().filter(PowerConstraint::isLongTerm).findFirst()
                    .orElseThrow(() -> new Stop(Outcome.BLOCKED, pkg.id() + ": no long_term constraint"));
        } catch (IOException e) {
            throw new Stop(Outcome.ERROR, pkg.id() + ": cannot read constraints: " + e.getMessage());
        }
        try {
            if (!layout.enabled(pkg)) {
                throw new Stop(Outcome.BLOCKED, pkg.id() + " (" + pkg.name() + "): power limiting is disabled (enabled = 0), so a "
                        + "limit written would not be enforced; the agent does not turn it on");
            }
        } catch (IOException e) {
            throw new Stop(Outcome.ERROR, pkg.id() + ": cannot read enabled: " + e.getMessage());
        }
        if (lockedByFirmware(pkg)) {
            throw new Stop(Outcome.BLOCKED, pkg.id() + ": long_term limit " + FIRMWARE_LOCK);
        }
        try {
            return new Target(pkg, longTerm, files.open(layout.limitFile(pkg, longTerm.index()), SysfsFiles.Access.WRITE));
        } catch (IOException e) {
            throw new Stop(outcomeOf(e), pkg.id() + ": long_term limit not writable: " + e.getMessage());
        }
    }

    /**
     * The zone's maximum: its reported {@code max_power_uw} (a bound of 0 or less counts as missing), else the largest
     * value the 15-bit RAPL field holds (0x7FFF power units from the MSR); without a readable MSR either, the cap is
     * blocked. Also blocks when the reported minimum is above the maximum.
     */
    private long maxUw(Target target) throws Stop {
        PowercapZone pkg = target.zone();
        OptionalLong reportedMax = target.constraint().hardwareMaxUw();
        long maxUw = reportedMax.isPresent() ? reportedMax.getAsLong() : fieldMaxUw(pkg)
                .orElseThrow(() -> new Stop(Outcome.BLOCKED, pkg.id() + ": no hardware maximum known (max_power_uw "
                        + "missing or not positive, and the RAPL power unit MSR is not readable)"));
        OptionalLong minUw = target.constraint().hardwareMinUw();
        if (minUw.isPresent() && minUw.getAsLong() > maxUw) {
            throw new Stop(Outcome.BLOCKED, pkg.id() + ": hardware min " + minUw.getAsLong() + " uW is above max " + maxUw + " uW");
        }
        return maxUw;
    }

    /** {@code requestedUw} clamped to the zone's bounds ({@link #maxUw}); blocks when the clamped value would be below 1 uW. */
    private long bounded(Target target, long requestedUw) throws Stop {
        long value = target.constraint().clamp(requestedUw, maxUw(target));
        if (value < 1) {
            throw new Stop(Outcome.BLOCKED, target.zone().id() + ": clamped limit " + value + " uW is below 1 uW");
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

    /** A package's long_term limit as it is now; empty when it cannot be read. */
    private Optional<LimitSnapshot> longTermLimit(PowercapZone pkg) {
        try {
            return layout.longTerm(pkg).map(c -> new LimitSnapshot(pkg.id(), c.index(), c.powerLimitUw()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The long_term limits as they are now (a zone whose limit cannot be read is left out). */
    private Map<String, Long> observed() {
        Map<String, Long> observed = new LinkedHashMap<>();
        for (PowercapZone pkg : packages) {
            longTermLimit(pkg).ifPresent(limit -> observed.put(pkg.id(), limit.powerLimitUw()));
        }
        return observed;
    }

    private CapResult result(Outcome outcome, String message, Map<String, Long> written) {
        return new CapResult(outcome, message, written, observed());
    }

    /** A refusal by the host blocks the cap (trying again will not help); any other failure is an error. */
    private static Outcome outcomeOf(IOException e) {
        return e instanceof HostFileException f && f.kind() == HostFileException.Kind.REFUSED ? Outcome.BLOCKED : Outcome.ERROR;
    }
}
