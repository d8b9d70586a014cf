package io.joulie.sim.optimum;

import io.joulie.planner.PlannerSettings;
import io.joulie.sim.SimConfig;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A schedule the hindsight search and the clairvoyant schedule run through the twin (docs/simulation.md, "Bracketing
 * the optimum"; decision 190): per planner tick, how many nodes stay performance, and the eco cap of each node type.
 *
 * <p>Two forms. A <em>total</em> schedule ({@code byType} false, one row) gives the cluster's count and leaves the
 * choice of nodes to the operator's {@link io.joulie.planner.EcoSelection}, as every counting policy does. A
 * <em>per-type</em> schedule ({@code byType} true, one row per node type of {@link SimConfig#nodeTypes()}) gives each
 * type's count, so it also decides which nodes go eco (GPU servers or CPU servers, R640 or R940); inside a type the
 * operator's eco selection picks the nodes. After the last tick a row's last value holds.
 *
 * @param counts            performance nodes per tick: one row (total) or one per node type
 * @param byType            whether the rows are per node type
 * @param ecoCapWattsByType eco CPU cap (watts) of a node type, replacing the configured one; a type not named keeps it
 */
public record Schedule(int[][] counts, boolean byType, Map<String, Double> ecoCapWattsByType) {
    public Schedule {
        SimConfig.require(counts.length >= 1 && Arrays.stream(counts).allMatch(r -> r.length >= 1), "a schedule needs a count");
        counts = Arrays.stream(counts).map(int[]::clone).toArray(int[][]::new);
        ecoCapWattsByType = java.util.Collections.unmodifiableMap(new TreeMap<>(ecoCapWattsByType));
    }

    /** The cluster's performance-node count per tick, nodes chosen by the operator's eco selection, configured caps. */
    public static Schedule total(int[] counts) {
        return new Schedule(new int[][] {counts}, false, Map.of());
    }

    /** Each node type's performance-node count per tick (rows in the order of the configuration's types). */
    public static Schedule perType(int[][] counts) {
        return new Schedule(counts, true, Map.of());
    }

    /** The counts, a defensive copy. */
    @Override
    public int[][] counts() {
        return Arrays.stream(counts).map(int[]::clone).toArray(int[][]::new);
    }

    /** Row {@code r}'s count at {@code tick} (its last value after its end). */
    public int count(int r, int tick) {
        int[] row = counts[r];
        return row[Math.min(tick, row.length - 1)];
    }

    /** The cluster's performance-node count per tick (a per-type schedule's rows summed), as long as the longest row. */
    public int[] totals() {
        int ticks = Arrays.stream(counts).mapToInt(r -> r.length).max().orElse(1);
        int[] t = new int[ticks];
        for (int i = 0; i < ticks; i++) {
            for (int r = 0; r < counts.length; r++) {
                t[i] += count(r, i);
            }
        }
        return t;
    }

    public Schedule withCounts(int[][] c) {
        return new Schedule(c, byType, ecoCapWattsByType);
    }

    public Schedule withEcoCaps(Map<String, Double> caps) {
        return new Schedule(counts, byType, caps);
    }

    /** The planner settings this schedule runs with: {@code base} with its eco caps by type overlaid. */
    public PlannerSettings settings(PlannerSettings base) {
        if (ecoCapWattsByType.isEmpty()) {
            return base;
        }
        Map<String, Double> caps = new TreeMap<>(base.ecoCapWattsByType());
        caps.putAll(ecoCapWattsByType);
        return base.toBuilder().ecoCapWattsByType(caps).build();
    }

    /** "per type, eco caps dell-r640 100 W" or "total": what the schedule chooses beyond the counts. */
    public String describe() {
        List<String> parts = new ArrayList<>(List.of(byType ? "counts per node type" : "total count, operator's eco selection"));
        if (!ecoCapWattsByType.isEmpty()) {
            parts.add("eco caps " + String.join(", ", ecoCapWattsByType.entrySet().stream()
                    .map(e -> String.format(Locale.ROOT, "%s %.0f W", e.getKey(), e.getValue())).toList()));
        }
        return String.join("; ", parts);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Schedule s && byType == s.byType && Arrays.deepEquals(counts, s.counts)
                && ecoCapWattsByType.equals(s.ecoCapWattsByType);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.deepHashCode(counts) + ecoCapWattsByType.hashCode() + (byType ? 1 : 0);
    }

    @Override
    public String toString() {
        return describe() + " " + Arrays.deepToString(counts);
    }
}
