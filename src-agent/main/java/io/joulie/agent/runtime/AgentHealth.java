package io.joulie.agent.runtime;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/** Probes. Readiness: watches synced and hardware probed. Liveness: a periodic reconcile ran within three intervals. */
@ApplicationScoped
public class AgentHealth {

    @Produces
    @Liveness
    HealthCheck loop(NodeAgent agent, Clock clock) {
        return () -> {
            Duration interval = agent.interval();
            Instant last = agent.lastPeriodic();
            var builder = HealthCheckResponse.named("agent-loop").withData("interval", interval.toString())
                    .withData("lastReconcile", last == null ? "never" : last.toString());
            Instant started = agent.started();
            if (started == null) {
                return builder.up().build();
            }
            return stalled(started, last, clock.instant(), interval)
                    .map(d -> builder.down().withData("reason", "no periodic reconcile for " + d).build())
                    .orElseGet(() -> builder.up().build());
        };
    }

    /** How long no periodic reconcile completed (counting from start), when that exceeds three intervals. */
    static Optional<Duration> stalled(Instant started, Instant lastCompleted, Instant now, Duration interval) {
        Instant progress = lastCompleted == null ? started : lastCompleted;
        Duration stalled = Duration.between(progress, now).withNanos(0);
        return stalled.compareTo(interval.multipliedBy(3)) > 0 ? Optional.of(stalled) : Optional.empty();
    }

    @Produces
    @Readiness
    HealthCheck ready(NodeAgent agent) {
        return () -> HealthCheckResponse.named("agent-ready").status(agent.ready())
                .withData("hardwareProbed", agent.probed()).build();
    }
}
