package io.joulie.api.text;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The schema patterns agree with the parsers they stand in front of: what a pattern accepts the parser reads (or
 * refuses for a reason the pattern leaves to it, such as a zone that does not exist), and the typos a pattern
 * refuses the parser refuses too, so the schema never turns away what the operator would use.
 */
class FormsTest {
    static boolean matches(String pattern, String text) {
        return Pattern.compile(pattern).matcher(text).find();
    }

    @ParameterizedTest
    @ValueSource(strings = {"30s", "1m", "1h30m", "500ms", "0", "0s", "1.5h", "2s500ms", "PT1M", "pt1m", "P1D", "PT0.25S", "PT45M"})
    void durationsThePatternAcceptsParse(String text) {
        assertThat(matches(Forms.DURATION, text)).isTrue();
        assertThat(Durations.parse(text)).isNotNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"30", "1min", "20 s", "5sec", "1d", "-5m", "1h 30m", "10S", ".5s", "1e3s", "soon", ""})
    void durationsThePatternRefusesDoNotParse(String text) {
        assertThat(matches(Forms.DURATION, text)).isFalse();
        assertThatIllegalArgumentException().isThrownBy(() -> Durations.parse(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"Europe/Berlin", "UTC", "America/Argentina/Buenos_Aires", "Etc/GMT+1", "+01:00", "-05", "UTC+1", "GMT+02:00"})
    void timeZonesThePatternAcceptsAreZoneIds(String text) {
        assertThat(matches(Forms.TIME_ZONE, text)).isTrue();
        assertThat(ZoneId.of(text)).isNotNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"Europe Berlin", "Berlin/", "/Berlin", "Europe//Berlin", "", "1:00"})
    void timeZonesThePatternRefusesAreNoZoneIds(String text) {
        assertThat(matches(Forms.TIME_ZONE, text)).isFalse();
        assertThatThrownBy(() -> ZoneId.of(text)).isInstanceOf(DateTimeException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"00:00", "08:30", "23:59", "12:00"})
    void clockTimes(String text) {
        assertThat(matches(Forms.CLOCK_TIME, text)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"24:00", "8:00", "08:60", "0800", "08:00:00", ""})
    void notClockTimes(String text) {
        assertThat(matches(Forms.CLOCK_TIME, text)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"Mon", "monday", "MON-FRI", "Fri-Mon", "sun", "Saturday-Sunday", "thu"})
    void days(String text) {
        assertThat(matches(Forms.DAY_RANGE, text)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"Mnday", "Mon,Fri", "Mon - Fri", "Mo", "Tues", "1-5", "Mon-Fri-Sat", ""})
    void notDays(String text) {
        assertThat(matches(Forms.DAY_RANGE, text)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://prometheus.monitoring:9090", "https://thanos-querier.openshift-monitoring.svc:9091/",
            "http://sim:8080/nodes/{node}/cpu", "http://{node}.sim:8080/", "http://10.0.0.1/api?x=1"})
    void urls(String text) {
        assertThat(matches(Forms.HTTP_URL, text)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"prometheus:9090", "ftp://p", "http://", "http:/p", "http://user:pw@p:9090", "http://p 9090", " http://p"})
    void notUrls(String text) {
        assertThat(matches(Forms.HTTP_URL, text)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"joulie.io/rack", "rack", "topology.kubernetes.io/zone", "a_b.c"})
    void labelKeysAreWhatTheSelectorParserTakes(String key) {
        assertThat(matches(Forms.LABEL_KEY, key)).isTrue();
        assertThat(LabelSelector.isValidKey(key)).isTrue();
    }
}
