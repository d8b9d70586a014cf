package io.joulie.sim;

import java.util.Arrays;
import java.util.Locale;

/**
 * How the twin's {@link Scheduler} scores the nodes a job fits ({@code scheduler.score}).
 */
public enum PlacementScore {
    /** kube-scheduler's default: the node with the largest share of free cores. */
    LEAST_ALLOCATED("least-allocated"),
    /**
     * The scheduler profile Joulie ships: {@link io.joulie.planner.EfficientLoadScore}, which fills a node up to its
     * target utilisation before opening another and spreads over nodes past it.
     */
    EFFICIENT_LOAD("efficient-load");

    private final String value;

    PlacementScore(String value) {
        this.value = value;
    }

    /** The parameter's value. */
    public String value() {
        return value;
    }

    /** The score a {@code scheduler.score} value names. */
    public static PlacementScore of(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(s -> s.value.equals(v)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("scheduler.score must be least-allocated or efficient-load, got '"
                        + value + "'"));
    }
}
