package io.joulie.planner;

/**
 * The bounds a counting policy keeps its performance-node count in ({@code QUEUE_HP_MIN}, {@code QUEUE_HP_MAX}),
 * normalised as the policies document it: a minimum below 0 counts as 0, a maximum of 0 or less means every eligible
 * node, and a maximum below the minimum is raised to it.
 *
 * @param min the lower bound, at least 0
 * @param max the upper bound as set: 0 or less for none
 */
record Bounds(int min, int max) {
    Bounds {
        min = Math.max(0, min);
    }

    /** The upper bound among {@code n} eligible nodes: {@code max}, or {@code n} when it is 0 or less; never below {@code min}. */
    int upper(int n) {
        return Math.max(max <= 0 ? n : max, min);
    }

    /** {@code hp} clamped to [min, upper(n)] and then to [0, n]: the count the policy plans. */
    int clamp(long hp, int n) {
        long bounded = Math.max(min, Math.min(upper(n), hp));
        return (int) Math.max(0, Math.min(n, bounded));
    }
}
