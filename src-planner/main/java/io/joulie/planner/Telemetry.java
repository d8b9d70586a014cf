package io.joulie.planner;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The telemetry one tick sees: per-node CPU package power and CPU temperature, and optional cluster-wide
 * scalars. Samples older than the source's staleness bound are already left out (they count as missing).
 *
 * @param status           whether telemetry is configured and could be read this tick
 * @param detail           why it is unavailable (empty otherwise)
 * @param nodes            fresh samples by node name
 * @param pue              facility power usage effectiveness, when configured and fresh
 * @param carbonIntensity  grid carbon intensity (gCO2/kWh), when configured and fresh
 */
public record Telemetry(Status status, String detail, Map<String, NodeSamples> nodes, OptionalDouble pue,
                        OptionalDouble carbonIntensity) {

    public enum Status {
        /** No telemetry source is configured: rules that need measurements use their fallbacks. */
        DISABLED,
        /** The source answered with fresh data. */
        AVAILABLE,
        /** A source is configured but could not be read (unreachable, query error, stale data). */
        UNAVAILABLE
    }

    /** No telemetry configured. */
    public static final Telemetry DISABLED = new Telemetry(Status.DISABLED, "", Map.of(), OptionalDouble.empty(),
            OptionalDouble.empty());

    public Telemetry {
        nodes = Map.copyOf(nodes);
        detail = detail == null ? "" : detail;
    }

    public static Telemetry unavailable(String detail) {
        return new Telemetry(Status.UNAVAILABLE, detail, Map.of(), OptionalDouble.empty(), OptionalDouble.empty());
    }

    public static Telemetry available(Map<String, NodeSamples> nodes, OptionalDouble pue, OptionalDouble carbonIntensity) {
        return new Telemetry(Status.AVAILABLE, "", nodes, pue, carbonIntensity);
    }

    public boolean live() {
        return status == Status.AVAILABLE;
    }

    public Optional<Sample> power(String node) {
        NodeSamples s = nodes.get(node);
        return s == null ? Optional.empty() : s.power();
    }

    public Optional<Sample> temperature(String node) {
        NodeSamples s = nodes.get(node);
        return s == null ? Optional.empty() : s.temperature();
    }

    /** One value and how old it was when the tick read it. */
    public record Sample(double value, Duration age) {
    }

    /**
     * A node's fresh samples.
     *
     * @param power       CPU package power, watts
     * @param temperature CPU temperature, °C
     */
    public record NodeSamples(Optional<Sample> power, Optional<Sample> temperature) {
    }
}
