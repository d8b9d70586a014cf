package io.joulie.testkit;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FakeClockTest {
    @Test
    void movesOnlyWhenAdvancedAndNeverBack() {
        FakeClock clock = new FakeClock();
        assertThat(clock.instant()).isEqualTo(FakeClock.START);
        assertThat(clock.nanoTime()).isZero();
        clock.advance(Duration.ofMillis(1500));
        assertThat(clock.instant()).isEqualTo(FakeClock.START.plusMillis(1500));
        assertThat(clock.millis()).isEqualTo(FakeClock.START.toEpochMilli() + 1500);
        assertThat(clock.nanoTime()).isEqualTo(1_500_000_000L);
        assertThatThrownBy(() -> clock.advance(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
    }
}
