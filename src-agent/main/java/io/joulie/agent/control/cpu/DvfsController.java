package io.joulie.agent.control.cpu;

import io.joulie.agent.host.Cpufreq;
import io.joulie.agent.host.CpufreqPolicy;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;

/**
 * The fallback when RAPL limits cannot be written: a closed loop that keeps measured package power near
 * the cap by lowering cpufreq ceilings.
 * <ul>
 * <li>Smoothing: exponential moving average, α = 0.3; the first reading starts it.</li>
 * <li>Band: the smoothed power is above it beyond cap + 10 W, below it under cap − 15 W (edges are inside).</li>
 * <li>Two consecutive readings on the same side move the throttle 10 points (above: up, below: down) within
 *     0..100. After a move the count starts again, and no further move happens for 20 s; readings during
 *     that cooldown still count, so a persistent excursion moves again as soon as the cooldown ends.</li>
 * <li>Throttle p % sets {@code scaling_max_freq} of the first ceil(n × p / 100) of the n policies (by policy
 *     number) to their {@code cpuinfo_min_freq} and of the others back to their original {@code scaling_max_freq}
 *     (as found at start; never above it, so a lower ceiling set before the agent started is kept). Whole policies
 *     at their minimum, rather than all policies at an interpolated frequency, give each step a large,
 *     predictable effect and leave the remaining cores at full speed.</li>
 * </ul>
 * Not thread-safe: one control loop calls {@link #onReading}.
 */
public final class DvfsController {
    static final double ALPHA = 0.3;
    static final double BAND_ABOVE_WATTS = 10;
    static final double BAND_BELOW_WATTS = 15;
    static final int READINGS_TO_MOVE = 2;
    static final int STEP_PERCENT = 10;
    static final Duration COOLDOWN = Duration.ofSeconds(20);

    public enum Band { BELOW, INSIDE, ABOVE }

    /** The outcome of one reading: the smoothed power, where it lies, and the throttle now in force. */
    public record Step(double smoothedWatts, Band band, int throttlePercent, boolean moved) {
    }

    private final Cpufreq cpufreq;
    private final InstantSource clock;
    private double smoothedWatts = Double.NaN;
    private Band streakBand = Band.INSIDE;
    private int streak;
    private int throttlePercent;
    private Instant lastMove;

    public DvfsController(Cpufreq cpufreq, InstantSource clock) {
        this.cpufreq = cpufreq;
        this.clock = clock;
    }

    public int throttlePercent() {
        return throttlePercent;
    }

    /**
     * Feeds one measurement of package power against the node cap. A move writes the policies; if a write
     * fails the exception propagates and the throttle stays where it was, so the next reading retries.
     */
    public Step onReading(double capWatts, double packageWatts) throws IOException {
        if (!Double.isFinite(capWatts) || capWatts <= 0) {
            throw new IllegalArgumentException("cap must be a finite number of watts > 0: " + capWatts);
        }
        if (!Double.isFinite(packageWatts) || packageWatts < 0) {
            throw new IllegalArgumentException("package power must be a finite number of watts >= 0: " + packageWatts);
        }
        smoothedWatts = Double.isNaN(smoothedWatts) ? packageWatts : ALPHA * packageWatts + (1 - ALPHA) * smoothedWatts;
        Band band = smoothedWatts > capWatts + BAND_ABOVE_WATTS ? Band.ABOVE
                : smoothedWatts < capWatts - BAND_BELOW_WATTS ? Band.BELOW : Band.INSIDE;
        streak = band == streakBand ? streak + 1 : 1;
        streakBand = band;
        int target = Math.clamp(throttlePercent + switch (band) {
            case ABOVE -> STEP_PERCENT;
            case BELOW -> -STEP_PERCENT;
            case INSIDE -> 0;
        }, 0, 100);
        Instant now = clock.instant();
        boolean cooledDown = lastMove == null || !now.isBefore(lastMove.plus(COOLDOWN));
        if (target == throttlePercent || streak < READINGS_TO_MOVE || !cooledDown) {
            return new Step(smoothedWatts, band, throttlePercent, false);
        }
        apply(target);
        throttlePercent = target;
        lastMove = now;
        streak = 0;
        return new Step(smoothedWatts, band, throttlePercent, true);
    }

    private void apply(int percent) throws IOException {
        List<CpufreqPolicy> policies = cpufreq.policies();
        int throttled = (policies.size() * percent + 99) / 100;
        for (int i = 0; i < policies.size(); i++) {
            CpufreqPolicy policy = policies.get(i);
            // an unthrottled policy goes back to the ceiling found at start, never above it
            cpufreq.setScalingMaxKHz(policy.id(), i < throttled ? policy.cpuinfoMinKHz() : policy.originalScalingMaxKHz());
        }
    }
}
