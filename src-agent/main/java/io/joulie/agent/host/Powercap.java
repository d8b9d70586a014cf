package io.joulie.agent.host;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/** RAPL power capping through the Linux powercap framework ({@code <sys>/class/powercap}). */
public interface Powercap extends AutoCloseable {
    /** Package zones found at start, by package number, each with its sub-zones. */
    List<PowercapZone> packages();

    /** The zone's enabled flag, energy counter and constraints, read now. */
    ZoneReading read(PowercapZone zone) throws IOException;

    /** The zone's {@code energy_uj}, through a descriptor opened on first use and kept. */
    long energyUj(PowercapZone zone) throws IOException;

    /** Whether every package's long_term limit could be written now (present, not locked, opens for writing). */
    boolean writable();

    /**
     * Caps the node: for watts, each of the n packages gets watts / n as its long_term limit; for a percent, each
     * package that percent of its own long-term maximum (max_power_uw, or the TDP its MSR reports); clamped to the
     * zone's [min_power_uw, max_power_uw]. Writes all packages or none.
     */
    CapResult apply(CapRequest cap);

    /**
     * The node cap in watts {@code cap} means on these packages: the watts as given, or the percent of the sum of the
     * packages' long-term maxima; empty for a percent when a package's maximum is not known.
     */
    OptionalDouble nodeWatts(CapRequest cap);

    /** {@link #apply} of a node cap in watts. */
    default CapResult applyNodeCap(double watts) {
        return apply(new CapRequest.Watts(watts));
    }

    /**
     * The originals: the long_term limits in force before the agent's first write (read at start, given by an earlier
     * agent process of this boot, or read again by {@link #recordOriginals()}).
     */
    List<LimitSnapshot> snapshot();

    /** Reads the long_term limits in force now as the originals (before a first write: nothing of the agent's is in force). */
    void recordOriginals() throws IOException;

    /** Writes the {@link #snapshot()} back. */
    CapResult restore();

    @Override
    void close();

    /** For hosts without {@code <sys>/class/powercap}: no zones, every apply is blocked. */
    static Powercap absent() {
        return new Powercap() {
            @Override
            public List<PowercapZone> packages() {
                return List.of();
            }

            @Override
            public ZoneReading read(PowercapZone zone) {
                throw new IllegalArgumentException("no powercap zones on this host: " + zone.id());
            }

            @Override
            public long energyUj(PowercapZone zone) {
                throw new IllegalArgumentException("no powercap zones on this host: " + zone.id());
            }

            @Override
            public boolean writable() {
                return false;
            }

            @Override
            public OptionalDouble nodeWatts(CapRequest cap) {
                return cap instanceof CapRequest.Watts(double w) ? OptionalDouble.of(w) : OptionalDouble.empty();
            }

            @Override
            public CapResult apply(CapRequest cap) {
                return new CapResult(CapResult.Outcome.BLOCKED, "powercap not available on this host", Map.of(), Map.of());
            }

            @Override
            public List<LimitSnapshot> snapshot() {
                return List.of();
            }

            @Override
            public void recordOriginals() {
            }

            @Override
            public CapResult restore() {
                return new CapResult(CapResult.Outcome.APPLIED, "nothing to restore", Map.of(), Map.of());
            }

            @Override
            public void close() {
            }
        };
    }
}
