package io.joulie.api.text;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * The one validator of configuration text: it reads numbers, whole numbers and durations, and collects every problem
 * as a line {@code <where> = '<value>': <problem>}, where {@code where} names the place the value was set (an
 * environment variable and its property, a {@code spec.policy} field, a simulator parameter). Nothing is thrown
 * until {@link #throwIfAny}: one bad value does not hide the others.
 */
public final class Problems {
    /** What a duration must be besides well-formed. */
    public enum DurationBound {
        NOT_NEGATIVE("must not be negative"),
        POSITIVE("must be greater than 0");

        private final String problem;

        DurationBound(String problem) {
            this.problem = problem;
        }

        boolean accepts(Duration d) {
            return !d.isNegative() && (this == NOT_NEGATIVE || !d.isZero());
        }
    }

    private final List<String> lines = new ArrayList<>();

    /** A problem with a value; a text value is quoted, a number is not ({@code = 'soon'}, {@code = -5.0}). */
    public void add(String where, Object value, String problem) {
        lines.add(where + " = " + (value instanceof Number ? value : "'" + (value == null ? "" : value) + "'") + ": " + problem);
    }

    /** A problem in words of its own, e.g. a rule between two values. */
    public void add(String line) {
        lines.add(line);
    }

    /** A finite decimal number, or empty after reporting {@code is not a number}. */
    public OptionalDouble number(String where, String text) {
        try {
            double d = Double.parseDouble(text.trim());
            if (Double.isFinite(d)) {
                return OptionalDouble.of(d);
            }
        } catch (RuntimeException e) {
            // reported below
        }
        add(where, text, "is not a number");
        return OptionalDouble.empty();
    }

    /** A 32-bit whole number, or empty after reporting {@code is not a whole number}. */
    public OptionalInt integer(String where, String text) {
        try {
            return OptionalInt.of(Integer.parseInt(text.trim()));
        } catch (RuntimeException e) {
            add(where, text, "is not a whole number");
            return OptionalInt.empty();
        }
    }

    /** A duration ({@link Durations}) within {@code bound}, or empty after reporting why not. */
    public Optional<Duration> duration(String where, String text, DurationBound bound) {
        try {
            Duration d = Durations.parse(text);
            if (bound.accepts(d)) {
                return Optional.of(d);
            }
            add(where, text, bound.problem);
        } catch (IllegalArgumentException e) {
            add(where, text, e.getMessage());
        }
        return Optional.empty();
    }

    public boolean isEmpty() {
        return lines.isEmpty();
    }

    /** Every problem, one line each, in the order found. */
    public List<String> lines() {
        return List.copyOf(lines);
    }

    /** Throws one {@link ConfigurationException} listing every problem under {@code header}, if there is any. */
    public void throwIfAny(String header) {
        if (!lines.isEmpty()) {
            throw new ConfigurationException(header + ":\n  - " + String.join("\n  - ", lines));
        }
    }
}
