package io.joulie.agent.control.cpu;

import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.HostControl;
import io.joulie.agent.control.LimitReference;
import io.joulie.agent.control.NodeFacts;
import io.joulie.agent.control.Observed;
import io.joulie.agent.host.CapRequest;
import io.joulie.agent.host.CapResult;
import io.joulie.agent.host.CpuOriginals;
import io.joulie.agent.host.Cpufreq;
import io.joulie.agent.host.CpufreqPolicy;
import io.joulie.agent.host.KeptOriginals;
import io.joulie.agent.host.Powercap;
import io.joulie.agent.host.PowercapZone;
import io.joulie.agent.host.ZoneReading;
import io.joulie.api.v1alpha1.ControlResult;
import io.joulie.api.v1alpha1.NodePowerProfileStatus.Device;

import java.io.IOException;
import java.time.InstantSource;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Host control: RAPL through {@link Powercap#applyNodeCap}, and the {@link DvfsController} over cpufreq when
 * no RAPL limit can be written. After a successful apply the long_term limits are read back, and that
 * read-back (not the value written, which the kernel may quantise) is the reference: each later call
 * rewrites only when the limits differ from it, so a limit changed behind the agent's back is put back,
 * while a converged node sees no writes. A cap the host blocked is not tried again until the cap changes
 * or the limits are restored. Nothing is written before the originals are kept ({@link KeptOriginals#beforeWrite}):
 * a write whose originals could not outlive this process would make a crash poison them. A restore that put
 * everything back removes the kept originals. Not thread-safe: the agent's single worker calls it.
 */
public final class HostCpuControl implements CpuControl, HostControl {
    private final Powercap powercap;
    private final Cpufreq cpufreq;
    private final KeptOriginals<CpuOriginals> originals;
    private final InstantSource clock;
    private DvfsController dvfs;
    private final LimitReference<String, CapResult> reference = new LimitReference<>();
    /** A cpufreq ceiling has been written (the DVFS loop) since the last restore. */
    private boolean cpufreqWritten;

    public HostCpuControl(Powercap powercap, Cpufreq cpufreq, KeptOriginals<CpuOriginals> originals, InstantSource clock) {
        this.powercap = powercap;
        this.cpufreq = cpufreq;
        this.originals = originals;
        this.clock = clock;
        this.dvfs = new DvfsController(guarded(), clock);
    }

    /** How many times a limit found different from the last write was written again (drift repairs). */
    @Override
    public int rewrites() {
        return reference.rewrites();
    }

    @Override
    public ControlOutcome enforce(CapRequest cap, NodeFacts facts) {
        OptionalDouble packageWatts = facts.packageWatts();
        if (!powercap.packages().isEmpty()) {
            Map<String, Long> current = currentLimitsUw();
            Optional<String> converged = reference.converged(cap, current);
            if (converged.isPresent()) {
                return outcome(CpuBackend.POWERCAP, ControlResult.APPLIED, converged.get(), current);
            }
            Optional<CapResult> known = reference.knownBlocked(cap);
            if (known.isEmpty()) {
                Optional<ControlOutcome> unkept = keepOriginals(CpuBackend.POWERCAP, current);
                if (unkept.isPresent()) {
                    return unkept.get();
                }
            }
            CapResult r = known.orElseGet(() -> powercap.apply(cap));
            if (known.isEmpty() && r.outcome() != CapResult.Outcome.APPLIED && !cpufreqWritten && r.observedUw().equals(originalLimitsUw())) {
                originals.nothingWritten();
            }
            // what the kernel reports back (it may round the value written) is the reference, and what is recorded
            Map<String, Long> readBack = known.isEmpty() ? currentLimitsUw() : current;
            String unrecorded = known.isEmpty() ? recordWritten(current, readBack, r.outcome() == CapResult.Outcome.APPLIED)
                    .map(why -> "; " + why).orElse("") : "";
            switch (r.outcome()) {
                case APPLIED -> {
                    reference.applied(cap, readBack, r.message());
                    return outcome(CpuBackend.POWERCAP, ControlResult.APPLIED, r.message() + unrecorded, readBack);
                }
                case ERROR -> {
                    reference.forget();
                    return outcome(CpuBackend.POWERCAP, ControlResult.ERROR, r.message() + unrecorded, r.observedUw());
                }
                case BLOCKED -> {
                    reference.blocked(cap, r);
                    if (cpufreq.policies().isEmpty()) {
                        return outcome(CpuBackend.POWERCAP, ControlResult.BLOCKED, r.message() + unrecorded,
                                known.isPresent() ? current : r.observedUw());
                    }
                    return dvfs(cap, packageWatts, "RAPL limit not writable (" + r.message() + unrecorded + "); ");
                }
                default -> throw new IllegalStateException(r.outcome().toString());
            }
        }
        if (!cpufreq.policies().isEmpty()) {
            return dvfs(cap, packageWatts, "no RAPL zones; ");
        }
        return ControlOutcome.blocked(CpuBackend.POWERCAP, "neither RAPL zones nor cpufreq policies on this host", Map.of());
    }

    /** The DVFS loop on the node cap in watts the request means (a percent needs the packages' maxima). */
    private ControlOutcome dvfs(CapRequest cap, OptionalDouble packageWatts, String why) {
        OptionalDouble nodeWatts = powercap.nodeWatts(cap);
        if (nodeWatts.isEmpty()) {
            return ControlOutcome.blocked(CpuBackend.DVFS, why + "a percent cap needs the packages' long-term maxima for the DVFS "
                    + "loop's target, and none is known", Map.of());
        }
        double capWatts = nodeWatts.getAsDouble();
        Map<Observed, Double> observed = new EnumMap<>(Observed.class);
        observed.put(Observed.CAP_WATTS, capWatts);
        String message = why + "DVFS keeps package power within " + fmt(capWatts - 15) + ".." + fmt(capWatts + 10)
                + " W by lowering cpufreq ceilings of " + cpufreq.policies().size() + " policies";
        if (packageWatts.isEmpty()) {
            observed.put(Observed.THROTTLE_PCT, (double) dvfs.throttlePercent());
            return new ControlOutcome(CpuBackend.DVFS, ControlResult.BLOCKED, why + "no power reading for the DVFS loop; the cap is not enforced "
                    + "until package power can be read", observed);
        }
        try {
            dvfs.onReading(capWatts, packageWatts.getAsDouble());
        } catch (IOException | RuntimeException e) {
            observed.put(Observed.THROTTLE_PCT, (double) dvfs.throttlePercent());
            return new ControlOutcome(CpuBackend.DVFS, ControlResult.ERROR, "cpufreq write failed: " + e.getMessage(), observed);
        }
        observed.put(Observed.THROTTLE_PCT, (double) dvfs.throttlePercent());
        return new ControlOutcome(CpuBackend.DVFS, ControlResult.APPLIED, message, observed);
    }

    @Override
    public ControlOutcome restore() {
        reference.forget();
        if (!originals.held()) {
            // nothing written since the start or the last restore: what is in force is someone else's, and stays
            return ControlOutcome.none(CpuBackend.POWERCAP, "nothing to restore: no limit written since the last restore");
        }
        Map<String, Long> before = currentLimitsUw();
        CapResult r = powercap.restore();
        String cpufreqMessage = "";
        try {
            cpufreq.restore();
        } catch (IOException | RuntimeException e) {
            cpufreqMessage = "; cpufreq restore failed: " + e.getMessage();
        }
        dvfs = new DvfsController(guarded(), clock);
        ControlResult result = r.outcome() == CapResult.Outcome.APPLIED && cpufreqMessage.isEmpty() ? ControlResult.APPLIED : ControlResult.ERROR;
        String storeMessage = "";
        if (result == ControlResult.APPLIED) {
            cpufreqWritten = false;
            try {
                originals.restored();
            } catch (IOException e) {
                storeMessage = "; the kept originals in " + originals.describe() + " could not be removed (" + e.getMessage() + ")";
            }
        }
        if (originals.held()) {
            // still held (a limit not put back, or the file not removed): what the restore changed is recorded
            storeMessage += recordWritten(before, currentLimitsUw(), false).map(why -> "; " + why).orElse("");
        }
        return outcome(CpuBackend.POWERCAP, result, r.message() + cpufreqMessage + storeMessage, r.observedUw());
    }

    /** An earlier agent process of this boot wrote limits and did not restore them (see {@link KeptOriginals}). */
    @Override
    public boolean leftByEarlierProcess() {
        return originals.leftByEarlierProcess();
    }

    /** The host's cpufreq for the DVFS loop: the originals are kept before each ceiling it writes. */
    private Cpufreq guarded() {
        return new Cpufreq() {
            @Override
            public List<CpufreqPolicy> policies() {
                return cpufreq.policies();
            }

            @Override
            public long setScalingMaxKHz(int policyId, long kHz) throws IOException {
                try {
                    keep();
                } catch (IOException e) {
                    throw new IOException(unkeptMessage(e), e);
                }
                cpufreqWritten = true;
                return cpufreq.setScalingMaxKHz(policyId, kHz);
            }

            @Override
            public void recordOriginals() throws IOException {
                cpufreq.recordOriginals();
            }

            @Override
            public void restore() throws IOException {
                cpufreq.restore();
            }
        };
    }

    private String unkeptMessage(Exception e) {
        return "the original limits cannot be kept in " + originals.describe() + " (" + e.getMessage() + "); nothing written, so "
                + "that a crash cannot make the agent's own limits pass for the originals";
    }

    /**
     * Records, with the kept originals, the limits as this attempt left them: all of them after a cap applied (they are
     * the agent's), else the last record with the zones the attempt changed (a write that failed and could not be rolled
     * back), never a limit someone else set. What the next agent process compares at start ({@link KeptOriginals#open}).
     */
    private Optional<String> recordWritten(Map<String, Long> before, Map<String, Long> after, boolean applied) {
        Map<String, Long> left = new LinkedHashMap<>(applied ? Map.of() : originals.written());
        after.forEach((zone, uw) -> {
            if (applied || !uw.equals(before.get(zone))) {
                left.put(zone, uw);
            }
        });
        return originals.afterWrite(left);
    }

    /** Keeps what is in force as the originals, unless they are kept already: before every write. */
    private void keep() throws IOException {
        originals.beforeWrite(() -> CpuOriginals.inForce(powercap, cpufreq));
    }

    /** Keeps the originals before a write; the outcome to report instead of writing when they cannot be kept. */
    private Optional<ControlOutcome> keepOriginals(CpuBackend backend, Map<String, Long> current) {
        try {
            keep();
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.of(outcome(backend, ControlResult.ERROR, unkeptMessage(e), current));
        }
    }

    private Map<String, Long> originalLimitsUw() {
        Map<String, Long> limits = new LinkedHashMap<>();
        powercap.snapshot().forEach(l -> limits.put(l.zoneId(), l.powerLimitUw()));
        return limits;
    }

    /** The long_term limits in force now, by zone id (what the host layer reads back). */
    public Map<String, Long> currentLimitsUw() {
        Map<String, Long> limits = new LinkedHashMap<>();
        for (PowercapZone zone : powercap.packages()) {
            try {
                ZoneReading reading = powercap.read(zone);
                reading.longTerm().ifPresent(c -> limits.put(zone.id(), c.powerLimitUw()));
            } catch (IOException | RuntimeException e) {
                // left out: differs from what was written, so the next enforce re-applies and reports
            }
        }
        return limits;
    }

    /** capWatts (sum), capWattsPerPackage (mean) and packages from per-package limits. */
    public static Map<Observed, Double> observed(Map<String, Long> limitsUw) {
        return Observed.ofLimits(limitsUw.values(), 1e6, Observed.CAP_WATTS_PER_PACKAGE, Observed.PACKAGES);
    }

    /** An outcome with the per-package limits read back: their sum and mean, and each package by its index. */
    private static ControlOutcome outcome(CpuBackend backend, ControlResult result, String message, Map<String, Long> limitsUw) {
        return new ControlOutcome(backend, result, message, observed(limitsUw), packages(limitsUw));
    }

    /**
     * Each package's limit in watts, by the index of its zone ({@code intel-rapl:1} is package 1; the kernel prints zone
     * ids in hexadecimal, so {@code intel-rapl:a} is 10), in index order.
     */
    public static List<Device> packages(Map<String, Long> limitsUw) {
        return limitsUw.entrySet().stream().map(e -> new Device(zoneIndex(e.getKey()), null, e.getValue() / 1e6))
                .sorted(java.util.Comparator.comparing(Device::index, java.util.Comparator.nullsLast(Integer::compare))).toList();
    }

    private static Integer zoneIndex(String zone) {
        int colon = zone.lastIndexOf(':');
        try {
            return Integer.valueOf(zone.substring(colon + 1), 16);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** What is in force now, for a status that reports without acting (blocked requests). */
    @Override
    public Map<Observed, Double> observedNow() {
        return observed(currentLimitsUw());
    }

    private static String fmt(double w) {
        return w == Math.rint(w) ? Long.toString((long) w) : Double.toString(w);
    }
}
