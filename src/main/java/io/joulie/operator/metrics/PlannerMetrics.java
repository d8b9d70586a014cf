package io.joulie.operator.metrics;

import io.joulie.api.v1alpha1.PowerState;
import io.joulie.planner.ActuationAdapter;
import io.joulie.planner.Outcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The operator's Prometheus metrics (listed in docs/metrics.md). Micrometer names map to Prometheus
 * names: {@code joulie.transitions} → {@code joulie_transitions_total}, and so on.
 */
@ApplicationScoped
public class PlannerMetrics {
    private final MeterRegistry registry;
    private final Timer tickDuration;
    private final AtomicLong managed = new AtomicLong();
    private final Map<PowerState, AtomicLong> byState = new EnumMap<>(PowerState.class);
    private final AtomicLong plannedPerformance = new AtomicLong();
    private final AtomicLong lastDecisions = new AtomicLong();
    private final AtomicLong lastReassignments = new AtomicLong();
    private final AtomicLong leader = new AtomicLong();
    private final AtomicLong lastTickSeconds = new AtomicLong();
    private final AtomicLong oldestDrainSeconds = new AtomicLong();
    private final AtomicLong excluded = new AtomicLong();
    private final Counter decisions;
    private final Counter reassignments;

    public PlannerMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.tickDuration = Timer.builder("joulie.tick.duration")
                .description("Duration of a planning tick: snapshot, plan, guard and writes")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(60))
                .register(registry);
        registry.gauge("joulie.managed.nodes", managed);
        for (PowerState s : PowerState.values()) {
            AtomicLong v = new AtomicLong();
            byState.put(s, v);
            registry.gauge("joulie.nodes", List.of(Tag.of("state", stateLabel(s))), v);
        }
        registry.gauge("joulie.planned.performance.nodes", plannedPerformance);
        registry.gauge("joulie.tick.decisions", lastDecisions);
        registry.gauge("joulie.tick.reassignments", lastReassignments);
        registry.gauge("joulie.leader", leader);
        registry.gauge("joulie.last.tick.timestamp.seconds", lastTickSeconds);
        registry.gauge("joulie.oldest.drain.seconds", oldestDrainSeconds);
        registry.gauge("joulie.excluded.nodes", excluded);
        decisions = Counter.builder("joulie.decisions").description("Node decisions made by the planner").register(registry);
        reassignments = Counter.builder("joulie.reassignments")
                .description("Nodes the plan sent elsewhere than they were heading").register(registry);
        // Failure counters start at 0 for every known label value: a series that first appears at 1 shows
        // no increase() to the alerts, and the dashboard's panels exist before the first failure.
        for (ErrorKind kind : ErrorKind.values()) {
            registry.counter("joulie.errors", "kind", kind.label());
        }
        for (ActuationAdapter.EvictionResult r : ActuationAdapter.EvictionResult.values()) {
            registry.counter("joulie.evictions", "result", label(r));
        }
    }

    /**
     * Removes this instance's meters, so that a restarted application (tests, dev mode) registers gauges
     * bound to its own values instead of finding stale ones.
     */
    @PreDestroy
    void close() {
        registry.getMeters().stream().filter(m -> m.getId().getName().startsWith("joulie."))
                .toList().forEach(registry::remove);
    }

    /** The {@code state} label of the node gauges: performance, draining, eco. */
    public static String stateLabel(PowerState s) {
        return switch (s) {
            case ActivePerformance -> "performance";
            case DrainingPerformance -> "draining";
            case ActiveEco -> "eco";
        };
    }

    public Timer tickTimer() {
        return tickDuration;
    }

    public void tick(TickResult result) {
        registry.counter("joulie.ticks", "result", result.label()).increment();
    }

    public void transition(PowerState from, PowerState to, Outcome outcome) {
        registry.counter("joulie.transitions", "from", from.name(), "to", to.name(), "outcome", outcome.label()).increment();
    }

    public void error(ErrorKind kind) {
        registry.counter("joulie.errors", "kind", kind.label()).increment();
    }

    public void write(ApiWrite write) {
        registry.counter("joulie.api.writes", "resource", write.resource(), "verb", write.verb()).increment();
    }

    public void eviction(ActuationAdapter.EvictionResult result) {
        registry.counter("joulie.evictions", "result", label(result)).increment();
    }

    private static String label(ActuationAdapter.EvictionResult r) {
        return r.name().toLowerCase(Locale.ROOT);
    }

    public void decided(long decisionCount, long reassignmentCount, long performanceNodes) {
        decisions.increment(decisionCount);
        reassignments.increment(reassignmentCount);
        lastDecisions.set(decisionCount);
        lastReassignments.set(reassignmentCount);
        plannedPerformance.set(performanceNodes);
    }

    public void nodes(long managedCount, Map<PowerState, Long> counts, long excludedCount, long oldestDrain) {
        managed.set(managedCount);
        byState.forEach((s, v) -> v.set(counts.getOrDefault(s, 0L)));
        excluded.set(excludedCount);
        oldestDrainSeconds.set(oldestDrain);
    }

    public void leader(boolean isLeader) {
        leader.set(isLeader ? 1 : 0);
    }

    public void completedAt(long epochSeconds) {
        lastTickSeconds.set(epochSeconds);
    }
}
