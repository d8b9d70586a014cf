package io.joulie.operator.telemetry;

import io.joulie.planner.Telemetry;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The operator's telemetry: reads Prometheus once per tick when {@code spec.policy.telemetry} configures
 * it, counts the outcome ({@code joulie_telemetry_reads_total{result}}) and logs only when availability
 * changes.
 */
@ApplicationScoped
public class TelemetrySource {
    private static final Logger LOG = Logger.getLogger(TelemetrySource.class);

    private final MeterRegistry registry;
    private final AtomicReference<PrometheusTelemetry> source = new AtomicReference<>();
    private final AtomicLong configured = new AtomicLong();
    private final AtomicLong available = new AtomicLong();
    private volatile Telemetry last = Telemetry.DISABLED;
    private volatile java.util.Map<PrometheusTelemetry.Signal, Integer> lastRefused = java.util.Map.of();

    public TelemetrySource(MeterRegistry registry) {
        this.registry = registry;
        // two gauges, no sentinel: configured 0/1, available 0/1 (0 also before the first read and when not configured)
        registry.gauge("joulie.telemetry.configured", configured);
        registry.gauge("joulie.telemetry.available", available);
        for (PrometheusTelemetry.Signal signal : PrometheusTelemetry.Signal.values()) {
            registry.counter("joulie.telemetry.refused", "signal", signal.label()); // at 0 from the start (decision 18)
        }
    }

    @PreDestroy
    void close() {
        registry.getMeters().stream().filter(m -> m.getId().getName().startsWith("joulie.telemetry."))
                .toList().forEach(registry::remove);
    }

    /** Replaces the source; empty switches telemetry off. */
    public void configure(Optional<TelemetryConfig> config) {
        PrometheusTelemetry current = source.get();
        if (config.equals(Optional.ofNullable(current).map(PrometheusTelemetry::config))) {
            return;
        }
        source.set(config.map(PrometheusTelemetry::new).orElse(null));
        configured.set(config.isPresent() ? 1 : 0);
        if (config.isEmpty()) {
            available.set(0);
            last = Telemetry.DISABLED;
        }
        LOG.infof("Telemetry: %s", config.map(c -> "Prometheus at " + c.url()).orElse("none"));
    }

    /**
     * This tick's telemetry ({@link Telemetry#DISABLED} when none is configured), read within {@code budget}
     * ({@link PrometheusTelemetry#read(java.time.Duration)}).
     */
    public Telemetry read(java.time.Duration budget) {
        PrometheusTelemetry s = source.get();
        if (s == null) {
            return Telemetry.DISABLED;
        }
        PrometheusTelemetry.Reading reading = s.read(budget);
        registry.counter("joulie.telemetry.reads", "result", reading.failure().orElse("ok")).increment();
        reading.refused().forEach((signal, n) -> registry.counter("joulie.telemetry.refused", "signal", signal.label()).increment(n));
        if (!reading.refused().equals(lastRefused)) {
            lastRefused = reading.refused();
            if (!lastRefused.isEmpty()) {
                LOG.warnf("Refused samples from Prometheus outside physical bounds (docs/policies.md, Telemetry): %s", lastRefused);
            }
        }
        Telemetry t = reading.telemetry();
        if (t.live() != last.live() || last.status() == Telemetry.Status.DISABLED) {
            if (t.live()) {
                LOG.infof("Telemetry available from %s", s.config().url());
            } else {
                LOG.warnf("Telemetry unavailable, telemetry-driven rules hold their last decisions: %s", t.detail());
            }
        }
        available.set(t.live() ? 1 : 0);
        last = t;
        return t;
    }
}
