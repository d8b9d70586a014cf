package io.joulie.operator.metrics;

import io.joulie.api.BuildInfo;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.planner.ActuationAdapter;
import io.joulie.planner.Outcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
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
    private final AtomicLong backingOff = new AtomicLong();
    private final Map<CapWait, AtomicLong> unconfirmed = new EnumMap<>(CapWait.class);
    private final Counter decisions;
    private final Counter reassignments;
    private final Counter violations;
    private final Timer violationTime;

    /** The {@code reason} label of {@code joulie_performance_caps_unconfirmed}. */
    public enum CapWait {
        /** The label waits for the agent, within CAP_CONFIRMATION_TIMEOUT. */
        WAITING,
        /** The label has waited for the agent longer than CAP_CONFIRMATION_TIMEOUT. */
        OVERDUE,
        /** No agent reports for the node: labelled at once, nothing confirmed its cap. */
        UNREPORTED;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public PlannerMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.tickDuration = Timer.builder("joulie.tick.duration")
                .description("Duration of a planning tick: snapshot, plan, guard and writes")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(60))
                .register(registry);
        BuildInfo build = BuildInfo.current();
        Gauge.builder("joulie.build.info", () -> 1).description("The build this replica runs (value 1)")
                .tags("version", build.version(), "revision", build.revision()).register(registry);
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
        registry.gauge("joulie.nodes.backing.off", backingOff);
        for (CapWait w : CapWait.values()) {
            AtomicLong v = new AtomicLong();
            unconfirmed.put(w, v);
            registry.gauge("joulie.performance.caps.unconfirmed", List.of(Tag.of("reason", w.label())), v);
        }
        violations = Counter.builder("joulie.contract.violations")
                .description("Performance-only pods found under the eco cap (each sent its node back to the performance cap)")
                .register(registry);
        violationTime = Timer.builder("joulie.contract.violation")
                .description("How long a performance-only pod ran under the eco cap: from when the operator saw it there (or "
                        + "the node went eco, if later) until the agent confirmed the performance cap or the pod left")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(10))
                .maximumExpectedValue(Duration.ofMinutes(10))
                .register(registry);
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

    /** Nodes whose writes keep failing and wait before the next attempt. */
    public void backingOff(long nodes) {
        backingOff.set(nodes);
    }

    /** ActivePerformance nodes whose performance cap no agent has confirmed, by why. */
    public void unconfirmedCaps(Map<CapWait, Long> counts) {
        unconfirmed.forEach((w, v) -> v.set(counts.getOrDefault(w, 0L)));
    }

    /** A performance-only pod was found under the eco cap. */
    public void contractViolation() {
        violations.increment();
    }

    /** A performance-only pod's time under the eco cap, once it ended. */
    public void violationEnded(Duration underEcoCap) {
        violationTime.record(underEcoCap);
    }

    public void leader(boolean isLeader) {
        leader.set(isLeader ? 1 : 0);
    }

    public void completedAt(long epochSeconds) {
        lastTickSeconds.set(epochSeconds);
    }
}
