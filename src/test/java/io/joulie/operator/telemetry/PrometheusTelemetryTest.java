package io.joulie.operator.telemetry;

import io.joulie.planner.Telemetry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

import static io.joulie.operator.telemetry.PrometheusServer.await;
import static org.assertj.core.api.Assertions.assertThat;

/** The telemetry source against a real Prometheus scraping a synthetic endpoint every second. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PrometheusTelemetryTest {
    static ScrapedPrometheus scraped;
    static SyntheticExporter exporter;
    static PrometheusServer prometheus;

    @BeforeAll
    static void start() throws Exception {
        scraped = ScrapedPrometheus.start();
        exporter = scraped.exporter();
        prometheus = scraped.server();
    }

    @AfterAll
    static void stop() throws Exception {
        if (scraped != null) {
            scraped.close();
        }
    }

    static TelemetryConfig config(URI url, String power, String temperature, Duration staleAfter) {
        return new TelemetryConfig(url, "node", Optional.ofNullable(power), Optional.ofNullable(temperature),
                Optional.of("facility_pue"), Optional.of("grid_carbon_grams_per_kwh"), Duration.ofSeconds(2), staleAfter,
                Credentials.NONE);
    }

    static PrometheusTelemetry source() {
        return new PrometheusTelemetry(config(prometheus.url(), "test_power_watts", "max by (node) (test_temp_celsius)",
                Duration.ofSeconds(30)));
    }

    @Test
    @Order(1)
    void readsPerNodeSamplesAndScalarsWithTheirAge() throws Exception {
        exporter.set("test_power_watts", "n1", 350).set("test_power_watts", "n2", 120.5)
                .set("test_temp_celsius", "n1", 81).set("test_temp_celsius", "n2", 55)
                .set("facility_pue", 1.4).set("grid_carbon_grams_per_kwh", 230);
        var source = source();

        assertThat(await(Duration.ofSeconds(20), () -> source.read().telemetry().power("n2").isPresent()
                && source.read().telemetry().carbonIntensity().isPresent())).isTrue();
        Telemetry t = source.read().telemetry();

        assertThat(t.status()).isEqualTo(Telemetry.Status.AVAILABLE);
        assertThat(t.power("n1").orElseThrow().value()).isEqualTo(350);
        assertThat(t.power("n2").orElseThrow().value()).isEqualTo(120.5);
        assertThat(t.temperature("n1").orElseThrow().value()).isEqualTo(81);
        assertThat(t.pue()).hasValue(1.4);
        assertThat(t.carbonIntensity()).hasValue(230);
        // scraped every second: a raw series is at most a few seconds old
        assertThat(t.power("n1").orElseThrow().age()).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    @Order(2)
    void samplesOlderThanTheBoundCountAsMissing() throws Exception {
        long old = System.currentTimeMillis() - 90_000;
        exporter.setAt("test_power_watts", "old", 999, old);
        var source = source();
        assertThat(await(Duration.ofSeconds(20), () -> source.read().telemetry().power("n1").isPresent()
                && new PrometheusTelemetry(config(prometheus.url(), "test_power_watts", null, Duration.ofMinutes(5)))
                .read().telemetry().power("old").isPresent())).isTrue();

        var lenient = new PrometheusTelemetry(config(prometheus.url(), "test_power_watts", null, Duration.ofMinutes(5)));
        assertThat(lenient.read().telemetry().power("old").orElseThrow().age()).isBetween(Duration.ofSeconds(85),
                Duration.ofSeconds(120));
        assertThat(source.read().telemetry().power("old")).isEmpty();
        assertThat(source.read().telemetry().power("n1")).isPresent();
        exporter.remove("test_power_watts", "old");
    }

    @Test
    @Order(3)
    void aSignalWithNoFreshSampleMakesTelemetryUnavailable() {
        var reading = new PrometheusTelemetry(config(prometheus.url(), "absent_metric_watts", null, Duration.ofSeconds(30))).read();

        assertThat(reading.telemetry().status()).isEqualTo(Telemetry.Status.UNAVAILABLE);
        assertThat(reading.failure()).contains("stale");
        assertThat(reading.telemetry().detail()).contains("no fresh power samples", "absent_metric_watts");
    }

    @Test
    @Order(4)
    void aQueryErrorIsReported() {
        var reading = new PrometheusTelemetry(config(prometheus.url(), "sum by (node) (", null, Duration.ofSeconds(30))).read();

        assertThat(reading.failure()).contains("query_error");
        assertThat(reading.telemetry().detail()).contains("HTTP 400", "bad_data");
    }

    @Test
    @Order(5)
    void anUnreachableServerIsReportedAndARestartRecovers() throws Exception {
        var source = source();
        prometheus.stop();

        var down = source.read();
        assertThat(down.telemetry().status()).isEqualTo(Telemetry.Status.UNAVAILABLE);
        assertThat(down.failure()).contains("unreachable");
        assertThat(down.telemetry().detail()).contains(prometheus.url().toString());

        prometheus.start();
        assertThat(await(Duration.ofSeconds(20), () -> source.read().telemetry().live())).isTrue();
        assertThat(source.read().telemetry().temperature("n1").orElseThrow().value()).isEqualTo(81);
    }

    @Test
    @Order(6)
    void valuesOutsidePhysicalBoundsAreRefusedAndCounted() throws Exception {
        exporter.set("test_power_watts", "wild", 99_999).set("test_temp_celsius", "n2", 480).set("facility_pue", 0.4)
                .set("grid_carbon_grams_per_kwh", -3);
        var source = source();
        assertThat(await(Duration.ofSeconds(20), () -> source.read().refused().containsKey(PrometheusTelemetry.Signal.POWER)
                && source.read().refused().containsKey(PrometheusTelemetry.Signal.PUE))).isTrue();

        var reading = source.read();
        Telemetry t = reading.telemetry();
        assertThat(t.live()).as("the sane samples still count").isTrue();
        assertThat(t.power("wild")).as("10 kW is the most a node's packages can draw").isEmpty();
        assertThat(t.power("n1").orElseThrow().value()).isEqualTo(350);
        assertThat(t.temperature("n2")).isEmpty();
        assertThat(t.temperature("n1").orElseThrow().value()).isEqualTo(81);
        assertThat(t.pue()).isEmpty();
        assertThat(t.carbonIntensity()).isEmpty();
        assertThat(reading.refused()).containsEntry(PrometheusTelemetry.Signal.POWER, 1)
                .containsEntry(PrometheusTelemetry.Signal.TEMPERATURE, 1).containsEntry(PrometheusTelemetry.Signal.PUE, 1)
                .containsEntry(PrometheusTelemetry.Signal.CARBON_INTENSITY, 1);

        // nothing sane left of a configured per-node signal: unavailable, as if stale
        var insane = new PrometheusTelemetry(config(prometheus.url(), "test_power_watts{node=\"wild\"}", null,
                Duration.ofSeconds(30))).read();
        assertThat(insane.telemetry().status()).isEqualTo(Telemetry.Status.UNAVAILABLE);
        assertThat(insane.telemetry().detail()).contains("no fresh power samples within physical bounds");
    }
}
