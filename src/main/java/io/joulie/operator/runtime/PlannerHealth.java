package io.joulie.operator.runtime;

import io.joulie.api.text.Durations;
import io.joulie.operator.cluster.ClusterView;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Probes. Readiness: the watches have synced. Liveness: on the leader, a tick has completed within the
 * last three intervals (counted from when it became leader); a standby replica is alive while it waits.
 */
@ApplicationScoped
public class PlannerHealth {

    @Produces
    @Liveness
    HealthCheck loop(PlannerLoop loop, LeaderElection leader, Clock clock) {
        return () -> {
            // the interval in force: spec.policy may have changed the environment's
            Duration interval = loop.plannerSettings().reconcileInterval();
            var builder = HealthCheckResponse.named("planner-loop").withData("interval", Durations.format(interval));
            if (leader.leaderSince().isEmpty()) {
                return builder.up().withData("leader", false).build();
            }
            Instant last = loop.lastCompleted();
            builder.withData("leader", true).withData("lastTick", last == null ? "never" : last.toString());
            return stalled(leader.leaderSince().get(), last, clock.instant(), interval)
                    .map(d -> builder.down().withData("reason", "no tick completed for " + Durations.format(d)).build())
                    .orElseGet(() -> builder.up().build());
        };
    }

    /**
     * How long the leader's loop has made no progress, when that exceeds three intervals. Progress is the
     * last completed tick, or becoming leader if no tick completed since.
     */
    static Optional<Duration> stalled(Instant leaderSince, Instant lastCompleted, Instant now, Duration interval) {
        Instant progress = lastCompleted == null || lastCompleted.isBefore(leaderSince) ? leaderSince : lastCompleted;
        Duration stalled = Duration.between(progress, now).withNanos(0);
        return stalled.compareTo(interval.multipliedBy(3)) > 0 ? Optional.of(stalled) : Optional.empty();
    }

    @Produces
    @Readiness
    HealthCheck watches(ClusterView view) {
        return () -> {
            List<String> unsynced = view.unsynced();
            var response = HealthCheckResponse.named("cluster-watches").status(unsynced.isEmpty());
            return unsynced.isEmpty() ? response.build() : response.withData("unsynced", String.join(", ", unsynced)).build();
        };
    }
}
