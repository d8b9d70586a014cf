package io.joulie.agent.control.cpu;

import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.HostControl;
import io.joulie.agent.control.LimitReference;
import io.joulie.agent.control.NodeFacts;
import io.joulie.agent.control.Observed;
import io.joulie.agent.host.CapRequest;
import io.joulie.agent.host.CapResult;
import io.joulie.agent.host.Cpufreq;
import io.joulie.agent.host.Powercap;
import io.joulie.agent.host.PowercapZone;
import io.joulie.agent.host.ZoneReading;
import io.joulie.api.v1alpha1.TelemetryProfileStatus.Result;

import java.io.IOException;
import java.time.InstantSource;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Host control: RAPL through {@link Powercap#applyNodeCap}, and the {@link DvfsController} over cpufreq when
 * no RAPL limit can be written. After a successful apply the long_term limits are read back, and that
 * read-back (not the value written, which the kernel may quantise) is the reference: each later call
 * rewrites only when the limits differ from it, so a limit changed behind the agent's back is put back,
 * while a converged node sees no writes. A cap the host blocked is not tried again until the cap changes
 * or the limits are restored. Not thread-safe: the agent's single worker calls it.
 */
public final class HostCpuControl implements CpuControl, HostControl {
    private final Powercap powercap;
    private final Cpufreq cpufreq;
    private final InstantSource clock;
    private DvfsController dvfs;
    private final LimitReference<String, CapResult> reference = new LimitReference<>();

    public HostCpuControl(Powercap powercap, Cpufreq cpufreq, InstantSource clock) {
        this.powercap = powercap;
        this.cpufreq = cpufreq;
        this.clock = clock;
        this.dvfs = new DvfsController(cpufreq, clock);
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
                return new ControlOutcome(CpuBackend.POWERCAP, Result.APPLIED, converged.get(), observed(current));
            }
            Optional<CapResult> known = reference.knownBlocked(cap);
            CapResult r = known.orElseGet(() -> powercap.apply(cap));
            switch (r.outcome()) {
                case APPLIED -> {
                    // what the kernel reports back (it may round the value written) is the reference
                    Map<String, Long> readBack = currentLimitsUw();
                    reference.applied(cap, readBack, r.message());
                    return new ControlOutcome(CpuBackend.POWERCAP, Result.APPLIED, r.message(), observed(readBack));
                }
                case ERROR -> {
                    reference.forget();
                    return new ControlOutcome(CpuBackend.POWERCAP, Result.ERROR, r.message(), observed(r.observedUw()));
                }
                case BLOCKED -> {
                    reference.blocked(cap, r);
                    if (cpufreq.policies().isEmpty()) {
                        return new ControlOutcome(CpuBackend.POWERCAP, Result.BLOCKED, r.message(),
                                observed(known.isPresent() ? current : r.observedUw()));
                    }
                    return dvfs(cap, packageWatts, "RAPL limit not writable (" + r.message() + "); ");
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
            return new ControlOutcome(CpuBackend.DVFS, Result.BLOCKED, why + "no power reading for the DVFS loop; the cap is not enforced "
                    + "until package power can be read", observed);
        }
        try {
            dvfs.onReading(capWatts, packageWatts.getAsDouble());
        } catch (IOException | RuntimeException e) {
            observed.put(Observed.THROTTLE_PCT, (double) dvfs.throttlePercent());
            return new ControlOutcome(CpuBackend.DVFS, Result.ERROR, "cpufreq write failed: " + e.getMessage(), observed);
        }
        observed.put(Observed.THROTTLE_PCT, (double) dvfs.throttlePercent());
        return new ControlOutcome(CpuBackend.DVFS, Result.APPLIED, message, observed);
    }

    @Override
    public ControlOutcome restore() {
        reference.forget();
        CapResult r = powercap.restore();
        String cpufreqMessage = "";
        try {
            cpufreq.restore();
        } catch (IOException | RuntimeException e) {
            cpufreqMessage = "; cpufreq restore failed: " + e.getMessage();
        }
        dvfs = new DvfsController(cpufreq, clock);
        Result result = r.outcome() == CapResult.Outcome.APPLIED && cpufreqMessage.isEmpty() ? Result.APPLIED : Result.ERROR;
        return new ControlOutcome(CpuBackend.POWERCAP, result, r.message() + cpufreqMessage, observed(r.observedUw()));
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

    /** What is in force now, for a status that reports without acting (blocked requests). */
    @Override
    public Map<Observed, Double> observedNow() {
        return observed(currentLimitsUw());
    }

    private static String fmt(double w) {
        return w == Math.rint(w) ? Long.toString((long) w) : Double.toString(w);
    }
}
