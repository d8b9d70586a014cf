package io.joulie.agent.host;

import io.joulie.agent.host.CapResult.Outcome;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * The node cap on RAPL, whatever moves the bytes: each of the n packages gets watts / n as its long_term limit,
 * bounded by what the package allows; every package's limit is opened for writing before any is written, and a
 * write that fails puts back what was already written, so the previous limits stay on any failure. The limits
 * found at start are recorded and written back by {@link #restore()}. The firmware lock (MSR 0x610 bit 63) is
 * cross-checked when the MSR can be read; an unreadable MSR proves nothing and does not block.
 */
final class RaplCapPolicy {
    /** The RAPL power-limit field is 15 bits wide, in power units (MSR 0x606). */
    static final long RAPL_LIMIT_FIELD_MAX = 0x7FFF;
    private static final String FIRMWARE_LOCK = "locked by firmware (MSR 0x610 bit " + PackageMsr.PowerLimit.LOCK_BIT + ")";

    private final PowercapLayout layout;
    private final SysfsFiles files;
    private final Msr msr;
    private final List<PowercapZone> packages;
    private final List<LimitSnapshot> snapshot;

    /** Records the long_term limits in force now ({@link #snapshot()}). */
    RaplCapPolicy(PowercapLayout layout, SysfsFiles files, Msr msr, List<PowercapZone> packages) {
        this.layout = layout;
        this.files = files;
        this.msr = msr;
        this.packages = packages;
        this.snapshot = packages.stream().flatMap(p -> longTermLimit(p).stream()).toList();
    }

    /** The long_term limits found at start. */
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
        if (cap instanceof CapRequest.Watts(double watts)) {
            double perPackageUw = watts / packages.size() * 1e6;
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
            for (Target target : targets) {
                long requestedUw = requested(cap, target);
                long value = bounded(target, requestedUw);
                if (value != requestedUw) {
                    notes.add(target.zone().id() + ": " + requestedUw + " uW clamped to hardware "
                            + (value > requestedUw ? "min " : "max ") + value + " uW");
                }
                values.put(target.zone().id(), value);
            }
            writeAll(targets, values);
            StringBuilder message = new StringBuilder("applied ");
            if (cap instanceof CapRequest.Percent) {
                long sumUw = values.values().stream().mapToLong(Long::longValue).sum();
                message.append(cap.describe()).append(" of each package's maximum (node cap ").append(CapRequest.format(sumUw / 1e6)).append(" W)");
            } else {
                message.append("node cap ").append(cap.describe());
            }
            message.append(" as long_term limit on ").append(targets.size()).append(targets.size() == 1 ? " package" : " packages");
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
        for (PowercapZone pkg : packages) {
            OptionalLong max;
            try {
                max = layout.longTerm(pkg).map(PowerConstraint::hardwareMaxUw).orElse(OptionalLong.empty());
            } catch (IOException e) {
                return OptionalDouble.empty();
            }
            OptionalLong base = max.isPresent() ? max : tdpUw(pkg);
            if (base.isEmpty()) {
                return OptionalDouble.empty();
            }
            sumUw += ((CapRequest.Percent) cap).of(base.getAsLong());
        }
        return OptionalDouble.of(sumUw / 1e6);
    }

    /** What the cap asks of one package, uW: watts split evenly, or the percent of the package's long-term maximum. */
    private long requested(CapRequest cap, Target target) throws Stop {
        return switch (cap) {
            case CapRequest.Watts(double watts) -> Math.round(watts / packages.size() * 1e6);
            case CapRequest.Percent p -> p.of(percentBase(target));
        };
    }

    /**
     * The long-term maximum a percent is taken of: {@code max_power_uw}, else the TDP the package's MSR reports
     * (MSR_PKG_POWER_INFO); blocked when neither is known (the 15-bit field maximum bounds a limit, it is no maximum
     * of the package's power).
     */
    private long percentBase(Target target) throws Stop {
        OptionalLong reported = target.constraint().hardwareMaxUw();
        if (reported.isPresent()) {
            return reported.getAsLong();
        }
        return tdpUw(target.zone()).orElseThrow(() -> new Stop(Outcome.BLOCKED, target.zone().id()
                + ": no long-term maximum to take a percent of (max_power_uw not reported, MSR_PKG_POWER_INFO not readable)"));
    }

    /** The package's TDP from its MSR, uW; empty when the MSR cannot be read or reports none. */
    private OptionalLong tdpUw(PowercapZone pkg) {
        try {
            return msr.read(pkg.packageIndex()).flatMap(m -> m.tdpWatts().isPresent()
                    ? Optional.of(Math.round(m.tdpWatts().getAsDouble() * 1e6)) : Optional.empty())
                    .map(OptionalLong::of).orElse(OptionalLong.empty());
        } catch (IOException e) {
            return OptionalLong.empty();
        }
    }

    /** Writes the {@link #snapshot()} back; a limit that cannot be written is reported, the others are restored. */
    CapResult restore() {
        Outcome outcome = Outcome.APPLIED;
        List<String> failures = new ArrayList<>();
        Map<String, Long> written = new LinkedHashMap<>();
        for (LimitSnapshot limit : snapshot) {
            try {
                files.writeText(layout.limitFile(limit.zoneId(), limit.constraintIndex()), Long.toString(limit.powerLimitUw()));
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
            longTerm = layout.longTerm(pkg).orElseThrow(() -> new Stop(Outcome.BLOCKED, pkg.id() + ": no long_term constraint"));
        } catch (IOException e) {
            throw new Stop(Outcome.ERROR, pkg.id() + ": cannot read constraints: " + e.getMessage());
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
