package io.joulie.planner;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class RateBudgetTest {
    static final Instant T0 = Instant.parse("2026-11-28T00:00:00Z");
    static final Duration PERIOD = Duration.ofSeconds(20);

    @Test
    void startsFullAndRefillsContinuouslyUpToItsCapacity() {
        RateBudget b = new RateBudget();
        assertThat(b.available(T0, 100, PERIOD)).isEqualTo(100);
        b.spend(100, T0, 100, PERIOD);
        assertThat(b.available(T0, 100, PERIOD)).isZero();
        assertThat(b.available(T0.plusSeconds(1), 100, PERIOD)).as("100 per 20 s: 5 a second").isEqualTo(5);
        assertThat(b.available(T0.plusSeconds(60), 100, PERIOD)).as("never above its capacity").isEqualTo(100);
    }

    @Test
    void hasRoomAgainWhenTheRefillReachesOneMore() {
        RateBudget b = new RateBudget();
        assertThat(b.roomAt(T0, 100, PERIOD)).as("room now").isEqualTo(T0);
        b.spend(100, T0, 100, PERIOD);
        assertThat(b.roomAt(T0, 100, PERIOD)).as("one more after a hundredth of the period").isEqualTo(T0.plusMillis(200));
        assertThat(b.roomAt(T0.plusMillis(100), 100, PERIOD)).as("half of it refilled already")
                .isEqualTo(T0.plusMillis(200));
        assertThat(b.available(T0.plusMillis(200), 100, PERIOD)).as("and then it has").isEqualTo(1);
    }

    @Test
    void aZeroCapacityNeverHasRoom() {
        RateBudget b = new RateBudget();
        b.spend(1, T0, 1, PERIOD);
        assertThat(b.roomAt(T0, 0, PERIOD)).isNull();
    }
}
