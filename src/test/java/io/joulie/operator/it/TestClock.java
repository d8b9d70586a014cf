package io.joulie.operator.it;

import io.joulie.testkit.FakeClock;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The operator's clock in the tests: the system clock, until a test stops it ({@link FakeClock}, at
 * {@link FakeClock#START}) and moves it on by hand (a drain timeout passes without waiting for it).
 */
@Alternative
@Priority(1)
@Singleton
public class TestClock extends Clock {
    private volatile FakeClock stopped;

    @Override
    public Instant instant() {
        FakeClock f = stopped;
        return f != null ? f.instant() : Instant.now();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return Clock.fixed(instant(), zone);
    }

    /** Stops the clock at {@link FakeClock#START}. */
    void stop() {
        stopped = new FakeClock();
    }

    /** Moves the stopped clock on. */
    void advance(Duration d) {
        stopped.advance(d);
    }

    /** Back to the system clock. */
    void release() {
        stopped = null;
    }
}
