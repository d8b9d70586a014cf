package io.joulie.agent.control;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

final class FakeClock implements InstantSource {
    private Instant now = Instant.parse("2026-11-21T12:00:00Z");

    @Override
    public Instant instant() {
        return now;
    }

    void advance(Duration duration) {
        now = now.plus(duration);
    }
}
