package io.joulie.operator.runtime;

import io.joulie.operator.cluster.ClusterView;
import io.joulie.operator.config.OperatorSettings;
import io.joulie.operator.planner.Durations;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Probes. Readiness: the watches have synced. Liveness: on the leader, a tick has completed within the
 * last three intervals (counted from when it became leader); a standby replica is alive while it waits.
 */
@ApplicationScoped
public class PlannerHealth {

    @Produces
    @Liveness
    HealthCheck loop(PlannerLoop loop, LeaderElection leader, OperatorSettings settings, Clock clock) {
        return () -> {
            Duration interval = settings.planner().reconcileInterval();
            Duration allowed = interval.multipliedBy(3);
            var builder = HealthCheckResponse.named("planner-loop").withData("interval", Durations.format(interval));
            if (leader.leaderSince().isEmpty()) {
                return builder.up().withData("leader", false).build();
            }
            Instant last = loop.lastCompleted();
            Instant since = leader.leaderSince().get();
            Instant progress = last == null || last.isBefore(since) ? since : last;
            Duration stalled = Duration.between(progress, clock.instant());
            builder.withData("leader", true).withData("lastTick", last == null ? "never" : last.toString());
            return stalled.compareTo(allowed) > 0
                    ? builder.down().withData("reason", "no tick completed for " + Durations.format(stalled.withNanos(0))).build()
                    : builder.up().build();
        };
    }

    @Produces
    @Readiness
    HealthCheck watches(ClusterView view) {
        return () -> HealthCheckResponse.named("cluster-watches").status(view.synced()).build();
    }
}
