package io.joulie.operator.metrics;

import java.util.Locale;

/** The {@code kind} label of {@code joulie_errors_total} (docs/metrics.md). */
public enum ErrorKind {
    /** A tick failed as a whole. */
    TICK,
    /** One node could not be written (or its name collides with another's). */
    NODE,
    /** A node that left management could not be released. */
    RELEASE,
    /** A write met a 409 Conflict and was retried on a fresh copy. */
    CONFLICT,
    /** An Event could not be recorded. */
    EVENT;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
