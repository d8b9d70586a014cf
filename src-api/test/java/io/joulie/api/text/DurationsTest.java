package io.joulie.api.text;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class DurationsTest {

    @ParameterizedTest(name = "\"{0}\" = {1}")
    @CsvSource({
            "30m, PT30M",
            "1h30m, PT1H30M",
            "500ms, PT0.5S",
            "90s, PT1M30S",
            "PT1M, PT1M",
            "pt1m, PT1M",
            "P1D, PT24H",
            "PT0.25S, PT0.25S",
            "1m, PT1M",
            "45s, PT45S",
            "0s, PT0S",
            "0, PT0S",          // a bare 0, as Go accepts
            "1h, PT1H",
            "48h, PT48H",
            "1.5h, PT1H30M",
            "0.5m, PT30S",
            "1m30s, PT1M30S",
            "1h1m1s1ms, PT1H1M1.001S",
            "2s500ms, PT2.5S",
            "1m1m, PT2M",       // repeated units add up, as in Go
            "'  90s ', PT1M30S",
    })
    void parses(String text, String iso) {
        assertThat(Durations.parse(text)).isEqualTo(Duration.parse(iso));
    }

    @ParameterizedTest(name = "rejects \"{0}\"")
    @ValueSource(strings = {"soon", "", "   ", "10x", "10", "x10s", "10s x", "1h 30m", "-5m", "5 m", "1.s", ".5s", "10S",
            "m", "ms", "1d", "PTxM", "P", "1h30", "1e3s"})
    void rejects(String text) {
        assertThatIllegalArgumentException().isThrownBy(() -> Durations.parse(text))
                .withMessageContaining(text.isBlank() ? "empty" : "not a duration");
    }

    @ParameterizedTest
    @NullSource
    void rejectsNull(String text) {
        assertThatIllegalArgumentException().isThrownBy(() -> Durations.parse(text)).withMessageContaining("empty");
    }

    @ParameterizedTest(name = "{0} formats as \"{1}\"")
    @CsvSource({
            "PT30M, 30m",
            "PT1H30M, 1h30m",
            "PT1M30S, 1m30s",
            "PT0.5S, 500ms",
            "PT0S, 0s",
            "PT1H, 1h",
            "PT48H, 48h",
            "P2DT3H, 51h",
            "PT1H0.001S, 1h1ms",
            "PT10M5S, 10m5s",
            "PT1.25S, 1s250ms",
    })
    void formats(String iso, String text) {
        assertThat(Durations.format(Duration.parse(iso))).isEqualTo(text);
    }

    @ParameterizedTest(name = "\"{0}\" round-trips")
    @ValueSource(strings = {"30m", "1h30m", "500ms", "90s", "PT1M", "0s", "1h1m1s1ms", "1.5h", "36h", "2s500ms", "PT0.001S",
            "0.5ms", "1.0000001s", "PT0.000000001S"})
    void roundTrips(String text) {
        Duration d = Durations.parse(text);
        String formatted = Durations.format(d);

        assertThat(formatted).isNotEmpty();
        assertThat(Durations.parse(formatted)).isEqualTo(d);
        assertThat(Durations.format(Durations.parse(formatted))).isEqualTo(formatted);
    }

    @ParameterizedTest(name = "negative {0} round-trips")
    @ValueSource(strings = {"PT-5S", "PT-1H-30M"})
    void negativeDurationsRoundTrip(String iso) {
        Duration d = Duration.parse(iso);

        assertThat(Durations.parse(Durations.format(d))).isEqualTo(d);
    }
}
