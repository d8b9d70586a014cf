package io.joulie.operator.runtime;

import io.joulie.operator.cluster.ClusterView;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Liveness fails when the leader's loop has not completed a tick for more than three intervals. */
class PlannerHealthTest {
    static final Instant T0 = Instant.parse("2026-11-21T12:00:00Z");

    @ParameterizedTest(name = "leader at +{0}s, last tick at +{1}s, now +{2}s, interval {3}s -> stalled {4}")
    @CsvSource(nullValues = "-", value = {
            // leaderSince, lastTick, now, interval, stalled seconds (- = alive)
            "0, -, 59, 60, -",        // no tick yet, within the first interval
            "0, -, 180, 60, -",       // exactly three intervals: still alive
            "0, -, 181, 60, 181",     // never ticked for more than three intervals
            "0, 100, 280, 60, -",     // ticked 180 s ago
            "0, 100, 281, 60, 181",   // the last tick is too old
            "500, 100, 600, 60, -",   // a tick from an earlier leadership does not count against a new leader
            "500, 100, 681, 60, 181", // ... but the new leadership's own silence does
            "0, 10, 40, 10, -",       // short test intervals
            "0, 10, 41, 10, 31",
    })
    void stalledAfterThreeIntervals(long leader, Long last, long now, long interval, Long stalled) {
        var result = PlannerHealth.stalled(T0.plusSeconds(leader), last == null ? null : T0.plusSeconds(last),
                T0.plusSeconds(now), Duration.ofSeconds(interval));

        if (stalled == null) {
            assertThat(result).isEmpty();
        } else {
            assertThat(result).contains(Duration.ofSeconds(stalled));
        }
    }

    static ClusterView viewWith(List<String> unsynced) {
        return new ClusterView(null, java.time.Clock.systemUTC()) {
            @Override
            public List<String> unsynced() {
                return unsynced;
            }
        };
    }

    @Test
    void theWatchesCheckIsDownAndNamesWhatHasNotSyncedUntilEverythingHas() {
        HealthCheckResponse listing = new PlannerHealth().watches(viewWith(List.of("Pod (listing)"))).call();
        assertThat(listing.getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
        assertThat(listing.getData()).hasValue(Map.of("unsynced", "Pod (listing)"));

        HealthCheckResponse synced = new PlannerHealth().watches(viewWith(List.of())).call();
        assertThat(synced.getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(synced.getData()).isEmpty();
    }
}
