package io.joulie.api.text;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Go-style durations ({@code 90s}, {@code 1m}, {@code 1h30m}, {@code 500ms}) as used in the environment. */
public final class Durations {
    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");

    private Durations() {
    }

    /**
     * Parses {@code 1h30m}, {@code 45s}, {@code 250ms} or an ISO-8601 duration ({@code PT1M}).
     *
     * @throws IllegalArgumentException when the text is neither
     */
    public static Duration parse(String text) {
        String t = text == null ? "" : text.trim();
        if (t.isEmpty()) {
            throw new IllegalArgumentException("empty duration");
        }
        if (t.equals("0")) {
            return Duration.ZERO;
        }
        if (t.startsWith("P") || t.startsWith("p")) {
            try {
                return Duration.parse(t.toUpperCase(java.util.Locale.ROOT));
            } catch (java.time.format.DateTimeParseException e) {
                throw new IllegalArgumentException("'" + text + "' is not a duration (e.g. 30s, 1m, 1h30m, PT1M)");
            }
        }
        Matcher m = PART.matcher(t);
        Duration total = Duration.ZERO;
        int pos = 0;
        while (m.find() && m.start() == pos) {
            double v = Double.parseDouble(m.group(1));
            long nanos = switch (m.group(2)) {
                case "ms" -> Math.round(v * 1e6);
                case "s" -> Math.round(v * 1e9);
                case "m" -> Math.round(v * 60e9);
                default -> Math.round(v * 3600e9);
            };
            total = total.plusNanos(nanos);
            pos = m.end();
        }
        if (pos != t.length()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration (e.g. 30s, 1m, 1h30m, PT1M)");
        }
        return total;
    }

    /**
     * The shortest Go-style form: {@code 30m}, {@code 1h30m}, {@code 90s} → {@code 1m30s}. Durations that form
     * cannot express (negative, or finer than a millisecond) are written as ISO-8601, which {@link #parse}
     * also reads, so the result always parses back to {@code d}.
     */
    public static String format(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        if (d.isNegative() || d.getNano() % 1_000_000 != 0) {
            return d.toString();
        }
        StringBuilder sb = new StringBuilder();
        long h = d.toHours();
        int m = d.toMinutesPart();
        int s = d.toSecondsPart();
        int ms = d.toMillisPart();
        if (h > 0) {
            sb.append(h).append('h');
        }
        if (m > 0) {
            sb.append(m).append('m');
        }
        if (s > 0) {
            sb.append(s).append('s');
        }
        if (ms > 0) {
            sb.append(ms).append("ms");
        }
        return sb.toString();
    }
}
