package io.joulie.planner;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

class ScheduleWindowTest {

    static ScheduleWindow window(String name, String days, String start, String end, String zone) {
        var set = Arrays.stream(days.split(" ")).map(DayOfWeek::valueOf).collect(Collectors.toSet());
        return new ScheduleWindow(name, set, LocalTime.parse(start), LocalTime.parse(end), ZoneId.of(zone),
                OptionalDouble.of(0.9), OptionalInt.empty(), OptionalInt.empty());
    }

    @ParameterizedTest(name = "{0} {1}-{2} {3} at {4}: {5}")
    @CsvSource(delimiter = '|', textBlock = """
            MONDAY TUESDAY WEDNESDAY THURSDAY FRIDAY | 08:00 | 18:00 | Europe/Berlin    | 2026-11-23T07:30:00Z | true
            MONDAY TUESDAY WEDNESDAY THURSDAY FRIDAY | 08:00 | 18:00 | Europe/Berlin    | 2026-11-23T06:59:59Z | false
            MONDAY TUESDAY WEDNESDAY THURSDAY FRIDAY | 08:00 | 18:00 | Europe/Berlin    | 2026-11-23T07:00:00Z | true
            MONDAY TUESDAY WEDNESDAY THURSDAY FRIDAY | 08:00 | 18:00 | Europe/Berlin    | 2026-11-23T17:00:00Z | false
            MONDAY TUESDAY WEDNESDAY THURSDAY FRIDAY | 08:00 | 18:00 | Europe/Berlin    | 2026-11-21T10:00:00Z | false
            MONDAY                                   | 09:00 | 17:00 | America/New_York | 2026-11-23T15:00:00Z | true
            MONDAY                                   | 09:00 | 17:00 | Asia/Tokyo       | 2026-11-23T15:00:00Z | false
            MONDAY                                   | 09:00 | 17:00 | Asia/Tokyo       | 2026-11-23T00:00:00Z | true
            FRIDAY                                   | 22:00 | 06:00 | UTC              | 2026-11-27T21:59:59Z | false
            FRIDAY                                   | 22:00 | 06:00 | UTC              | 2026-11-27T22:00:00Z | true
            FRIDAY                                   | 22:00 | 06:00 | UTC              | 2026-11-28T05:59:59Z | true
            FRIDAY                                   | 22:00 | 06:00 | UTC              | 2026-11-28T06:00:00Z | false
            FRIDAY                                   | 22:00 | 06:00 | UTC              | 2026-11-26T23:00:00Z | false
            FRIDAY                                   | 22:00 | 06:00 | UTC              | 2026-11-27T01:00:00Z | false
            WEDNESDAY                                | 00:00 | 00:00 | UTC              | 2026-11-25T00:00:00Z | true
            WEDNESDAY                                | 00:00 | 00:00 | UTC              | 2026-11-25T23:59:59Z | true
            WEDNESDAY                                | 00:00 | 00:00 | UTC              | 2026-11-26T00:00:00Z | false
            SUNDAY                                   | 02:30 | 04:00 | Europe/Berlin    | 2026-03-29T00:59:59Z | false
            SUNDAY                                   | 02:30 | 04:00 | Europe/Berlin    | 2026-03-29T01:00:00Z | true
            SUNDAY                                   | 02:30 | 04:00 | Europe/Berlin    | 2026-03-29T01:59:59Z | true
            SUNDAY                                   | 02:30 | 04:00 | Europe/Berlin    | 2026-03-29T02:00:00Z | false
            SUNDAY                                   | 02:00 | 03:00 | Europe/Berlin    | 2026-10-25T00:30:00Z | true
            SUNDAY                                   | 02:00 | 03:00 | Europe/Berlin    | 2026-10-25T01:30:00Z | true
            SUNDAY                                   | 02:00 | 03:00 | Europe/Berlin    | 2026-10-25T02:00:00Z | false
            """)
    void opensByWallClockInItsZone(String days, String start, String end, String zone, String at, boolean open) {
        assertThat(window("w", days, start, end, zone).isOpen(Instant.parse(at))).isEqualTo(open);
    }

    @Test
    void theFirstOpenWindowWins() {
        var night = window("night", "SUNDAY MONDAY", "00:00", "00:00", "UTC");
        var monday = window("monday", "MONDAY", "00:00", "12:00", "UTC");
        var windows = List.of(monday, night);

        assertThat(ScheduleWindow.firstOpen(windows, Instant.parse("2026-11-23T10:00:00Z"))).contains(monday);
        assertThat(ScheduleWindow.firstOpen(windows, Instant.parse("2026-11-23T13:00:00Z"))).contains(night);
        assertThat(ScheduleWindow.firstOpen(windows, Instant.parse("2026-11-24T13:00:00Z"))).isEmpty();
    }

    @Test
    void aWindowReplacesOnlyWhatItSets() {
        var base = PlannerSettings.defaults().withPolicy(PolicyType.QUEUE_AWARE_V1);
        var w = new ScheduleWindow("w", java.util.Set.of(DayOfWeek.MONDAY), LocalTime.NOON, LocalTime.MIDNIGHT,
                ZoneId.of("UTC"), OptionalDouble.empty(), OptionalInt.of(3), OptionalInt.empty());

        var s = w.apply(base);

        assertThat(s.queueHpMin()).isEqualTo(3);
        assertThat(s.queueHpMax()).isEqualTo(base.queueHpMax());
        assertThat(s.queueHpBaseFrac()).isEqualTo(base.queueHpBaseFrac());
        assertThat(s.staticHpFrac()).isEqualTo(base.staticHpFrac());
    }
}
