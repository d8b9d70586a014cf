package io.joulie.agent.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Go-style durations ({@code 20s}, {@code 1m30s}, {@code 500ms}) or ISO-8601 ({@code PT20S}), as the environment uses them. */
public final class Durations {
    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");

    private Durations() {
    }

    /** @throws IllegalArgumentException when the text is not a duration */
    public static Duration parse(String text) {
        String t = text == null ? "" : text.trim();
        if (t.isEmpty()) {
            throw new IllegalArgumentException("empty duration");
        }
        if (t.startsWith("P") || t.startsWith("p")) {
            try {
                return Duration.parse(t.toUpperCase(Locale.ROOT));
            } catch (java.time.format.DateTimeParseException e) {
                throw new IllegalArgumentException("'" + text + "' is not a duration (e.g. 20s, 1m, PT20S)");
            }
        }
        Matcher m = PART.matcher(t);
        Duration total = Duration.ZERO;
        int pos = 0;
        while (m.find() && m.start() == pos) {
            double v = Double.parseDouble(m.group(1));
            total = total.plusNanos(switch (m.group(2)) {
                case "ms" -> Math.round(v * 1e6);
                case "s" -> Math.round(v * 1e9);
                case "m" -> Math.round(v * 60e9);
                default -> Math.round(v * 3600e9);
            });
            pos = m.end();
        }
        if (pos != t.length()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration (e.g. 20s, 1m, PT20S)");
        }
        return total;
    }
}
