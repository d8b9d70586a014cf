package io.joulie.operator.it;

import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The operator's clock in the tests: the system clock, until a test fixes it at an instant and moves it on by hand
 * (a drain timeout passes without waiting for it).
 */
@Alternative
@Priority(1)
@Singleton
public class TestClock extends Clock {
    private volatile Instant fixed;

    @Override
    public Instant instant() {
        Instant f = fixed;
        return f != null ? f : Instant.now();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return Clock.fixed(instant(), zone);
    }

    /** Stops the clock at {@code at}. */
    void fix(Instant at) {
        fixed = at;
    }

    /** Moves the stopped clock on. */
    void advance(Duration d) {
        fixed = fixed.plus(d);
    }

    /** Back to the system clock. */
    void release() {
        fixed = null;
    }
}
