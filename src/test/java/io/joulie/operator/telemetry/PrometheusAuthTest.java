package io.joulie.operator.telemetry;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import static io.joulie.operator.telemetry.PrometheusServer.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The telemetry client against a real Prometheus behind authentication: TLS with a certificate of its own and basic
 * auth (Prometheus's web configuration file), and a bearer token checked in front of it (as OpenShift's Thanos
 * querier does). Each way in succeeds with the right credentials and fails, with a message that says why, without
 * them.
 */
class PrometheusAuthTest {
    /** Generous: a TLS handshake on a loaded CI machine took over 2 s, and a timed-out query reads as unreachable. */
    static final Duration QUERY_TIMEOUT = Duration.ofSeconds(15);
    static SyntheticExporter exporter;
    static PrometheusServer prometheus;
    static Credentials basic;

    @BeforeAll
    static void start() throws Exception {
        exporter = new SyntheticExporter().set("test_power_watts", "n1", 321);
        prometheus = PrometheusServer.secured(exporter.target()).start();
        basic = new Credentials(Optional.empty(), Optional.of(PrometheusServer.USER), Optional.of(prometheus.passwordFile()),
                Optional.of(prometheus.caFile()));
    }

    @AfterAll
    static void stop() throws Exception {
        if (prometheus != null) {
            prometheus.close();
        }
        if (exporter != null) {
            exporter.close();
        }
    }

    static PrometheusTelemetry.Reading read(URI url, Credentials credentials) {
        return new PrometheusTelemetry(new TelemetryConfig(url, "node", Optional.of("test_power_watts"), Optional.empty(),
                Optional.empty(), Optional.empty(), QUERY_TIMEOUT, Duration.ofMinutes(5), credentials)).read();
    }

    @Test
    void basicAuthOverTlsWithTheServersCa() throws Exception {
        assertThat(prometheus.url().getScheme()).isEqualTo("https");
        assertThat(await(Duration.ofSeconds(20), () -> read(prometheus.url(), basic).telemetry().power("n1").isPresent())).isTrue();
        assertThat(read(prometheus.url(), basic).telemetry().power("n1").orElseThrow().value()).isEqualTo(321.0);
    }

    @Test
    void withoutTheCaTheServerIsNotTrusted() {
        var reading = read(prometheus.url(), new Credentials(Optional.empty(), basic.username(), basic.passwordFile(), Optional.empty()));
        assertThat(reading.failure()).contains("unreachable");
        assertThat(reading.telemetry().detail()).contains("is unreachable", "SSLHandshakeException");
    }

    @Test
    void aWrongPasswordOrNoneIsRefusedAndSaysSo() throws Exception {
        Path wrong = prometheus.file("wrong-password", "guess\n");
        var refused = read(prometheus.url(), new Credentials(Optional.empty(), basic.username(), Optional.of(wrong), basic.caFile()));
        assertThat(refused.failure()).as(refused.telemetry().detail()).contains("query_error");
        assertThat(refused.telemetry().detail()).contains("refused the request: HTTP 401 (check the credentials)");
        var none = read(prometheus.url(), new Credentials(Optional.empty(), Optional.empty(), Optional.empty(), basic.caFile()));
        assertThat(none.telemetry().detail()).contains("HTTP 401 (no credentials configured)");
    }

    @Test
    void aBearerTokenIsReadFromItsFileForEveryQuery() throws Exception {
        Path token = prometheus.file("token", "first-token\n");
        try (BearerProxy proxy = new BearerProxy(prometheus, basic, "first-token")) {
            Credentials bearer = new Credentials(Optional.of(token), Optional.empty(), Optional.empty(), Optional.empty());
            PrometheusTelemetry source = new PrometheusTelemetry(new TelemetryConfig(proxy.url(), "node", Optional.of("test_power_watts"),
                    Optional.empty(), Optional.empty(), Optional.empty(), QUERY_TIMEOUT, Duration.ofMinutes(5), bearer));
            assertThat(await(Duration.ofSeconds(20), () -> source.read().telemetry().power("n1").isPresent())).isTrue();

            // the token rotates: the same source sends the new one
            proxy.expect("second-token");
            Files.writeString(token, "second-token\n");
            assertThat(source.read().telemetry().power("n1")).isPresent();

            proxy.expect("third-token");
            var refused = source.read();
            assertThat(refused.failure()).as(refused.telemetry().detail()).contains("query_error");
            assertThat(refused.telemetry().detail()).contains("HTTP 401 (check the credentials)");

            Files.delete(token);
            assertThat(source.read().telemetry().detail())
                    .contains("credentials for Prometheus at " + proxy.url() + "/ cannot be read", "NoSuchFileException");
        }
    }
}
