package io.joulie.operator.config;

import io.joulie.api.text.Problems;
import io.joulie.api.text.Problems.DurationBound;
import io.joulie.api.v1alpha1.PolicyRulesSpec;
import io.joulie.operator.telemetry.Credentials;
import io.joulie.operator.telemetry.TelemetryConfig;
import io.joulie.planner.PolicyRules;
import io.joulie.planner.ScheduleWindow;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Validates the rule parts of {@code spec.policy} into {@link PolicyRules} and a {@link TelemetryConfig}.
 * Every problem is collected, each naming its field.
 */
public final class RulesParser {
    private RulesParser() {
    }

    /** The validated rules and, when configured, the telemetry source. */
    public record ParsedRules(PolicyRules rules, Optional<TelemetryConfig> telemetry) {
        public static final ParsedRules NONE = new ParsedRules(PolicyRules.NONE, Optional.empty());
    }

    /** The rules of {@code spec.policy}; only to be used when {@code errors} received nothing. */
    public static ParsedRules parse(String timeZone, List<PolicyRulesSpec.Schedule> schedules,
                                    PolicyRulesSpec.PowerBudget budget, PolicyRulesSpec.Hotspots hotspots,
                                    PolicyRulesSpec.Telemetry telemetry, Problems errors) {
        ZoneId defaultZone = zone("spec.policy.timeZone", timeZone, ZoneId.of("UTC"), errors);
        List<ScheduleWindow> windows = new ArrayList<>();
        if (schedules != null) {
            for (int i = 0; i < schedules.size(); i++) {
                window("spec.policy.schedules[" + i + "]", schedules.get(i), defaultZone, errors).ifPresent(windows::add);
            }
        }
        OptionalDouble watts = OptionalDouble.empty();
        if (budget != null) {
            if (budget.watts() == null || !(budget.watts() > 0) || budget.watts().isInfinite()) {
                errors.add("spec.policy.powerBudget.watts = " + budget.watts() + ": must be a number of watts greater than 0");
            } else {
                watts = OptionalDouble.of(budget.watts());
            }
        }
        PolicyRules.Hotspots hot = null;
        String rackLabel = null;
        if (hotspots != null) {
            Double band = hotspots.hysteresisCelsius() == null ? 5.0 : hotspots.hysteresisCelsius();
            if (hotspots.thresholdCelsius() == null || !Double.isFinite(hotspots.thresholdCelsius())) {
                errors.add("spec.policy.hotspots.thresholdCelsius = " + hotspots.thresholdCelsius() + ": a temperature in °C is required");
            } else if (!Double.isFinite(band) || band < 0) {
                errors.add("spec.policy.hotspots.hysteresisCelsius = " + band + ": must be 0 or more °C");
            } else {
                hot = new PolicyRules.Hotspots(hotspots.thresholdCelsius(), band);
            }
            rackLabel = hotspots.rackLabel();
        }
        Optional<TelemetryConfig> source = telemetry == null || telemetry.prometheus() == null
                ? Optional.empty() : prometheus(telemetry.prometheus(), errors);
        if (hot != null && source.map(c -> c.temperatureQuery().isEmpty()).orElse(true)) {
            errors.add("spec.policy.hotspots: needs spec.policy.telemetry.prometheus.queries.cpuTemperatureCelsius");
        }
        return new ParsedRules(new PolicyRules(windows, watts, hot, rackLabel), source);
    }

    private static Optional<ScheduleWindow> window(String at, PolicyRulesSpec.Schedule s, ZoneId defaultZone,
                                                   Problems errors) {
        int before = errors.lines().size();
        String name = s.name() == null || s.name().isBlank() ? at.substring("spec.policy.".length()) : s.name().trim();
        Set<DayOfWeek> days = days(at + ".days", s.days(), errors);
        LocalTime start = time(at + ".start", s.start(), errors);
        LocalTime end = time(at + ".end", s.end(), errors);
        ZoneId zone = zone(at + ".timeZone", s.timeZone(), defaultZone, errors);
        if (s.performanceShare() == null && s.minPerformanceNodes() == null && s.maxPerformanceNodes() == null) {
            errors.add(at + ": sets nothing; give performanceShare, minPerformanceNodes or maxPerformanceNodes");
        }
        if (s.performanceShare() != null && !(s.performanceShare() >= 0 && s.performanceShare() <= 1)) {
            errors.add(at + ".performanceShare = " + s.performanceShare() + ": must be between 0 and 1");
        }
        if (s.minPerformanceNodes() != null && s.minPerformanceNodes() < 0) {
            errors.add(at + ".minPerformanceNodes = " + s.minPerformanceNodes() + ": must be 0 or more");
        }
        if (s.minPerformanceNodes() != null && s.maxPerformanceNodes() != null
                && s.maxPerformanceNodes() < s.minPerformanceNodes()) {
            errors.add(at + ".maxPerformanceNodes = " + s.maxPerformanceNodes() + ": is below minPerformanceNodes");
        }
        if (errors.lines().size() > before) {
            return Optional.empty();
        }
        return Optional.of(new ScheduleWindow(name, days, start, end, zone,
                s.performanceShare() == null ? OptionalDouble.empty() : OptionalDouble.of(s.performanceShare()),
                s.minPerformanceNodes() == null ? OptionalInt.empty() : OptionalInt.of(s.minPerformanceNodes()),
                s.maxPerformanceNodes() == null ? OptionalInt.empty() : OptionalInt.of(s.maxPerformanceNodes())));
    }

    /** "Mon", "monday", "Mon-Fri", "Fri-Mon" (wrapping). */
    static Set<DayOfWeek> days(String at, List<String> values, Problems errors) {
        Set<DayOfWeek> days = EnumSet.noneOf(DayOfWeek.class);
        if (values == null || values.isEmpty()) {
            errors.add(at + ": at least one day is required (e.g. [Mon-Fri])");
            return days;
        }
        for (String v : values) {
            String[] range = (v == null ? "" : v.trim()).split("-", -1);
            Optional<DayOfWeek> from = day(range[0]);
            Optional<DayOfWeek> to = range.length == 2 ? day(range[1]) : from;
            if (range.length > 2 || from.isEmpty() || to.isEmpty()) {
                errors.add(at + " = '" + v + "': not a day or range of days (Mon..Sun, e.g. Mon-Fri)");
                continue;
            }
            for (DayOfWeek d = from.get(); ; d = d.plus(1)) {
                days.add(d);
                if (d == to.get()) {
                    break;
                }
            }
        }
        return days;
    }

    private static Optional<DayOfWeek> day(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        if (t.length() < 3) {
            return Optional.empty();
        }
        for (DayOfWeek d : DayOfWeek.values()) {
            if (d.name().equals(t) || d.name().substring(0, 3).equals(t)) {
                return Optional.of(d);
            }
        }
        return Optional.empty();
    }

    private static LocalTime time(String at, String text, Problems errors) {
        try {
            if (text != null && text.trim().matches("\\d{2}:\\d{2}")) {
                return LocalTime.parse(text.trim());
            }
        } catch (DateTimeParseException e) {
            // reported below
        }
        errors.add(at + " = '" + text + "': not a time of day HH:MM (00:00 to 23:59)");
        return LocalTime.MIDNIGHT;
    }

    private static ZoneId zone(String at, String text, ZoneId fallback, Problems errors) {
        if (text == null || text.isBlank()) {
            return fallback;
        }
        try {
            return ZoneId.of(text.trim());
        } catch (DateTimeException e) {
            errors.add(at + " = '" + text + "': not a time zone (IANA name such as Europe/Berlin, or UTC)");
            return fallback;
        }
    }

    private static Optional<TelemetryConfig> prometheus(PolicyRulesSpec.Prometheus p, Problems errors) {
        String at = "spec.policy.telemetry.prometheus";
        URI url = null;
        try {
            url = p.url() == null ? null : new URI(p.url().trim());
        } catch (URISyntaxException e) {
            // reported below
        }
        if (url == null || !("http".equals(url.getScheme()) || "https".equals(url.getScheme())) || url.getHost() == null) {
            errors.add(at + ".url = '" + p.url() + "': an http(s) URL is required, e.g. http://prometheus.monitoring:9090");
        }
        Duration timeout = duration(at + ".timeout", p.timeout(), TelemetryConfig.DEFAULT_TIMEOUT, errors);
        if (timeout.compareTo(TelemetryConfig.MAX_TIMEOUT) > 0) {
            errors.add(at + ".timeout", p.timeout(), "must be at most " + TelemetryConfig.MAX_TIMEOUT.toSeconds() + "s (each read "
                    + "makes up to eight queries one after the other, within a tick)");
            timeout = TelemetryConfig.DEFAULT_TIMEOUT;
        }
        Duration stale = duration(at + ".staleAfter", p.staleAfter(), TelemetryConfig.DEFAULT_STALE_AFTER, errors);
        PolicyRulesSpec.Queries q = p.queries();
        Optional<String> power = query(q == null ? null : q.packagePowerWatts());
        Optional<String> temperature = query(q == null ? null : q.cpuTemperatureCelsius());
        if (power.isEmpty() && temperature.isEmpty()) {
            errors.add(at + ".queries: give packagePowerWatts and/or cpuTemperatureCelsius");
        }
        return Optional.of(new TelemetryConfig(url, p.nodeLabel(), power, temperature,
                query(q == null ? null : q.pue()), query(q == null ? null : q.carbonIntensity()), timeout, stale,
                credentials(at, p, url, errors)));
    }

    /**
     * The credentials of {@code spec.policy.telemetry.prometheus}: each file must be readable now (it is mounted into
     * the operator's pod), the CA file must hold certificates and goes with an https URL only, and a token or a
     * password goes over plain http only with {@code insecure: true}.
     */
    static Credentials credentials(String at, PolicyRulesSpec.Prometheus p, URI url, Problems errors) {
        if (p.bearerTokenFile() != null && p.basicAuth() != null) {
            errors.add(at + ": give bearerTokenFile or basicAuth, not both");
        }
        Optional<Path> token = readable(at + ".bearerTokenFile", p.bearerTokenFile(), errors);
        Optional<String> user = Optional.empty();
        Optional<Path> password = Optional.empty();
        if (p.basicAuth() != null) {
            if (p.basicAuth().username() == null || p.basicAuth().username().isBlank() || p.basicAuth().username().contains(":")) {
                errors.add(at + ".basicAuth.username = '" + p.basicAuth().username() + "': a user name without ':' is required");
            }
            user = Optional.ofNullable(p.basicAuth().username());
            password = readable(at + ".basicAuth.passwordFile", p.basicAuth().passwordFile(), errors);
            if (p.basicAuth().passwordFile() == null) {
                errors.add(at + ".basicAuth.passwordFile: a file holding the password is required");
            }
        }
        if ((p.bearerTokenFile() != null || p.basicAuth() != null) && url != null && "http".equals(url.getScheme())
                && !Boolean.TRUE.equals(p.insecure())) {
            errors.add(at + ".url = '" + p.url() + "': " + (p.bearerTokenFile() != null ? "bearerTokenFile" : "basicAuth")
                    + " would be sent in clear over http, readable by anyone on the path to that host; use an https url, or set "
                    + at + ".insecure: true to accept that");
        }
        Optional<Path> ca = readable(at + ".caFile", p.caFile(), errors);
        Credentials credentials = new Credentials(token, user, password, ca);
        if (ca.isPresent()) {
            if (url != null && !"https".equals(url.getScheme())) {
                errors.add(at + ".caFile: a CA file is only used with an https url");
            }
            try {
                credentials.sslContext();
            } catch (IOException | GeneralSecurityException e) {
                errors.add(at + ".caFile = '" + p.caFile() + "': no PEM certificates (" + e.getMessage() + ")");
            }
        }
        return credentials;
    }

    private static Optional<Path> readable(String at, String file, Problems errors) {
        if (file == null) {
            return Optional.empty();
        }
        Path path = Path.of(file);
        if (!path.isAbsolute() || !Files.isReadable(path) || Files.isDirectory(path)) {
            errors.add(at + " = '" + file + "': not a readable file in the operator's container (mount the Secret into its pod)");
        }
        return Optional.of(path);
    }

    private static Duration duration(String at, String text, Duration fallback, Problems errors) {
        if (text == null || text.isBlank()) {
            return fallback;
        }
        return errors.duration(at, text, DurationBound.POSITIVE).orElse(fallback);
    }

    private static Optional<String> query(String q) {
        return q == null || q.isBlank() ? Optional.empty() : Optional.of(q.trim());
    }
}
