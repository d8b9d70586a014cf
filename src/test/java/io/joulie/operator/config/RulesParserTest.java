package io.joulie.operator.config;

import io.joulie.api.text.ConfigurationException;
import io.joulie.api.text.Problems;
import io.joulie.api.v1alpha1.PolicyRulesSpec;
import io.joulie.api.v1alpha1.PolicyRulesSpec.Hotspots;
import io.joulie.api.v1alpha1.PolicyRulesSpec.PowerBudget;
import io.joulie.api.v1alpha1.PolicyRulesSpec.Prometheus;
import io.joulie.api.v1alpha1.PolicyRulesSpec.Queries;
import io.joulie.api.v1alpha1.PolicyRulesSpec.Schedule;
import io.joulie.planner.PolicyRules;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.List;

import static java.time.DayOfWeek.FRIDAY;
import static java.time.DayOfWeek.MONDAY;
import static java.time.DayOfWeek.SATURDAY;
import static java.time.DayOfWeek.SUNDAY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RulesParserTest {
    /** The rules, or the exception listing every problem. */
    static RulesParser.ParsedRules parse(String timeZone, List<Schedule> schedules, PowerBudget budget, Hotspots hotspots,
                                         PolicyRulesSpec.Telemetry telemetry) {
        Problems problems = new Problems();
        RulesParser.ParsedRules rules = RulesParser.parse(timeZone, schedules, budget, hotspots, telemetry, problems);
        problems.throwIfAny("Invalid spec.policy rules");
        return rules;
    }

    static final PolicyRulesSpec.Telemetry PROMETHEUS = new PolicyRulesSpec.Telemetry(new Prometheus(
            "http://prometheus.monitoring:9090", null, "3s", null,
            new Queries("joulie_agent_package_power_watts", "max by (node) (node_temp)", null, null), null, null, null, null));

    @Test
    void aFullSpecBecomesRulesAndATelemetrySource() {
        var office = new Schedule("office", List.of("Mon-Fri"), "08:00", "18:00", null, 0.8, 2, null);
        var night = new Schedule(null, List.of("sat", "Sunday"), "22:00", "06:00", "UTC", null, null, 1);

        var parsed = parse("Europe/Berlin", List.of(office, night), new PowerBudget(40000.0),
                new Hotspots(85.0, null, "example.com/rack"), PROMETHEUS);

        PolicyRules r = parsed.rules();
        assertThat(r.schedules()).hasSize(2);
        var w = r.schedules().getFirst();
        assertThat(w.days()).containsExactlyInAnyOrder(MONDAY, DayOfWeek.TUESDAY, DayOfWeek.WEDNESDAY, DayOfWeek.THURSDAY, FRIDAY);
        assertThat(w.zone()).isEqualTo(ZoneId.of("Europe/Berlin"));
        assertThat(w.start()).isEqualTo(LocalTime.of(8, 0));
        assertThat(w.share()).hasValue(0.8);
        assertThat(w.minNodes()).hasValue(2);
        assertThat(r.schedules().get(1).name()).isEqualTo("schedules[1]");
        assertThat(r.schedules().get(1).days()).containsExactlyInAnyOrder(SATURDAY, SUNDAY);
        assertThat(r.schedules().get(1).zone()).isEqualTo(ZoneId.of("UTC"));
        assertThat(r.budgetWatts()).hasValue(40000);
        assertThat(r.hotspots()).isEqualTo(new PolicyRules.Hotspots(85, 5));
        assertThat(r.rackLabel()).isEqualTo("example.com/rack");
        var t = parsed.telemetry().orElseThrow();
        assertThat(t.url().toString()).isEqualTo("http://prometheus.monitoring:9090");
        assertThat(t.nodeLabel()).isEqualTo("node");
        assertThat(t.timeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(t.staleAfter()).isEqualTo(Duration.ofMinutes(2));
        assertThat(t.powerQuery()).contains("joulie_agent_package_power_watts");
    }

    @Test
    void nothingConfiguredIsNoRules() {
        var parsed = parse(null, null, null, null, null);
        assertThat(parsed.rules().isEmpty()).isTrue();
        assertThat(parsed.telemetry()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            Fri-Mon | FRIDAY SATURDAY SUNDAY MONDAY
            monday  | MONDAY
            Sun-Sun | SUNDAY
            """)
    void dayRanges(String text, String expected) {
        Problems errors = new Problems();
        assertThat(RulesParser.days("d", List.of(text), errors))
                .containsExactlyInAnyOrderElementsOf(Arrays.stream(expected.split(" ")).map(DayOfWeek::valueOf).toList());
        assertThat(errors.lines()).isEmpty();
    }

    @Test
    void everyProblemIsListedOnce() {
        var bad = new Schedule("x", List.of("Mon-Funday", "Tu"), "8:00", "24:00", "Mars/Olympus", 1.5, 3, 2);
        var empty = new Schedule("y", List.of("Mon"), "08:00", "09:00", null, null, null, null);
        var prometheus = new PolicyRulesSpec.Telemetry(new Prometheus("prometheus:9090", null, "soon", "0s", new Queries(null, " ", null, null),
                null, null, null, null));

        assertThatThrownBy(() -> parse("Nowhere/City", List.of(bad, empty), new PowerBudget(-1.0),
                new Hotspots(null, -2.0, null), prometheus))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("spec.policy.timeZone = 'Nowhere/City': not a time zone")
                .hasMessageContaining("spec.policy.schedules[0].days = 'Mon-Funday': not a day or range of days")
                .hasMessageContaining("spec.policy.schedules[0].days = 'Tu'")
                .hasMessageContaining("spec.policy.schedules[0].start = '8:00': not a time of day HH:MM")
                .hasMessageContaining("spec.policy.schedules[0].end = '24:00'")
                .hasMessageContaining("spec.policy.schedules[0].timeZone = 'Mars/Olympus'")
                .hasMessageContaining("spec.policy.schedules[0].performanceShare = 1.5: must be between 0 and 1")
                .hasMessageContaining("spec.policy.schedules[0].maxPerformanceNodes = 2: is below minPerformanceNodes")
                .hasMessageContaining("spec.policy.schedules[1]: sets nothing")
                .hasMessageContaining("spec.policy.powerBudget.watts = -1.0: must be a number of watts greater than 0")
                .hasMessageContaining("spec.policy.hotspots.thresholdCelsius = null: a temperature in °C is required")
                .hasMessageContaining("spec.policy.telemetry.prometheus.url = 'prometheus:9090': an http(s) URL is required")
                .hasMessageContaining("spec.policy.telemetry.prometheus.timeout = 'soon'")
                .hasMessageContaining("spec.policy.telemetry.prometheus.staleAfter = '0s': must be greater than 0")
                .hasMessageContaining("spec.policy.telemetry.prometheus.queries: give packagePowerWatts and/or cpuTemperatureCelsius");
    }

    @Test
    void hotspotsNeedATemperatureQuery() {
        assertThatThrownBy(() -> parse(null, null, null, new Hotspots(80.0, -1.0, null), null))
                .hasMessageContaining("spec.policy.hotspots.hysteresisCelsius = -1.0: must be 0 or more °C");
        assertThatThrownBy(() -> parse(null, null, null, new Hotspots(80.0, 2.0, null), null))
                .hasMessageContaining("spec.policy.hotspots: needs spec.policy.telemetry.prometheus.queries.cpuTemperatureCelsius");
    }

    @Test
    void aBudgetWorksWithoutTelemetry() {
        var parsed = parse(null, null, new PowerBudget(1000.0), null, null);
        assertThat(parsed.rules().budgetWatts()).hasValue(1000);
        assertThat(parsed.telemetry()).isEmpty();
    }

    static PolicyRulesSpec.Telemetry secured(String url, String token, PolicyRulesSpec.BasicAuth basic, String ca) {
        return secured(url, token, basic, ca, null);
    }

    static PolicyRulesSpec.Telemetry secured(String url, String token, PolicyRulesSpec.BasicAuth basic, String ca, Boolean insecure) {
        return new PolicyRulesSpec.Telemetry(new Prometheus(url, null, null, null, new Queries("power", null, null, null),
                token, basic, ca, insecure));
    }

    @Test
    void credentialsComeFromReadableFilesAndReachTheTelemetrySource(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path token = java.nio.file.Files.writeString(dir.resolve("token"), "t0k3n\n");
        var bearer = parse(null, null, null, null, secured("https://thanos:9091", token.toString(), null, null))
                .telemetry().orElseThrow().credentials();
        assertThat(bearer.authorization()).contains("Bearer t0k3n");
        java.nio.file.Path password = java.nio.file.Files.writeString(dir.resolve("password"), "s3cret");
        var basic = parse(null, null, null, null, secured("https://p:9091", null,
                new PolicyRulesSpec.BasicAuth("joulie", password.toString()), null)).telemetry().orElseThrow().credentials();
        assertThat(basic.authorization()).contains("Basic " + java.util.Base64.getEncoder().encodeToString("joulie:s3cret".getBytes()));
    }

    @Test
    void badCredentialsAreEachNamed(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path notPem = java.nio.file.Files.writeString(dir.resolve("ca.crt"), "not a certificate");
        java.nio.file.Path token = java.nio.file.Files.writeString(dir.resolve("token"), "t");
        String at = "spec.policy.telemetry.prometheus";
        assertThatThrownBy(() -> parse(null, null, null, null, secured("http://p:9090", dir.resolve("missing").toString(),
                new PolicyRulesSpec.BasicAuth("a:b", null), notPem.toString())))
                .hasMessageContaining(at + ": give bearerTokenFile or basicAuth, not both")
                .hasMessageContaining(at + ".bearerTokenFile = '" + dir.resolve("missing") + "': not a readable file in the operator's container")
                .hasMessageContaining(at + ".basicAuth.username = 'a:b': a user name without ':' is required")
                .hasMessageContaining(at + ".basicAuth.passwordFile: a file holding the password is required")
                .hasMessageContaining(at + ".caFile: a CA file is only used with an https url")
                .hasMessageContaining(at + ".caFile = '" + notPem + "': no PEM certificates");
        assertThatThrownBy(() -> parse(null, null, null, null, secured("https://p:9091", "token", null, null)))
                .hasMessageContaining(at + ".bearerTokenFile = 'token': not a readable file").as("a relative path");
        assertThat(parse(null, null, null, null, secured("https://p:9091", token.toString(), null, null)).telemetry()).isPresent();
    }

    /** A token or a password goes in clear over http only when the resource says it accepts that. */
    @Test
    void credentialsOverPlainHttpNeedInsecure(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path token = java.nio.file.Files.writeString(dir.resolve("token"), "t");
        String at = "spec.policy.telemetry.prometheus";
        assertThatThrownBy(() -> parse(null, null, null, null, secured("http://p:9090", token.toString(), null, null)))
                .hasMessageContaining(at + ".url = 'http://p:9090': bearerTokenFile would be sent in clear over http")
                .hasMessageContaining("use an https url, or set " + at + ".insecure: true to accept that");
        assertThatThrownBy(() -> parse(null, null, null, null, secured("http://p:9090", null,
                new PolicyRulesSpec.BasicAuth("joulie", token.toString()), null, false)))
                .hasMessageContaining(at + ".url = 'http://p:9090': basicAuth would be sent in clear over http");
        assertThat(parse(null, null, null, null, secured("http://p:9090", token.toString(), null, null, true))
                .telemetry().orElseThrow().credentials().authorization()).contains("Bearer t");
        assertThat(parse(null, null, null, null, secured("http://p:9090", null, null, null)).telemetry())
                .as("no credentials, nothing to protect").isPresent();
    }

    @Test
    void thePrometheusTimeoutIsAtMostThirtySeconds() {
        String at = "spec.policy.telemetry.prometheus";
        var slow = new PolicyRulesSpec.Telemetry(new Prometheus("http://p:9090", null, "31s", null, new Queries("power", null, null, null),
                null, null, null, null));
        assertThatThrownBy(() -> parse(null, null, null, null, slow))
                .hasMessageContaining(at + ".timeout = '31s': must be at most 30s");
        var bound = new PolicyRulesSpec.Telemetry(new Prometheus("http://p:9090", null, "30s", null, new Queries("power", null, null, null),
                null, null, null, null));
        assertThat(parse(null, null, null, null, bound).telemetry().orElseThrow().timeout()).hasSeconds(30);
    }
}
