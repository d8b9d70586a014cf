package io.joulie.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock that moves only when the test says so ({@link #advance}). It is a {@link Clock}, so it serves where
 * code takes a Clock or an {@code InstantSource}, and it gives a monotonic reading ({@link #nanoTime}) for code
 * that measures delays the way {@code System.nanoTime} does. Not thread-safe: one test thread moves it.
 */
public final class FakeClock extends Clock {
    /** Where every FakeClock starts. */
    public static final Instant START = Instant.parse("2026-11-21T12:00:00Z");

    private Instant now = START;

    @Override
    public Instant instant() {
        return now;
    }

    /** Nanoseconds since {@link #START}: moves with {@link #advance} and never otherwise. */
    public long nanoTime() {
        return Duration.between(START, now).toNanos();
    }

    public FakeClock advance(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("a clock does not go back: " + duration);
        }
        now = now.plus(duration);
        return this;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a FakeClock is UTC");
    }
}
