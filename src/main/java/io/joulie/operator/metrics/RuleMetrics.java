package io.joulie.operator.metrics;

import io.joulie.planner.RuleReport;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;

/**
 * What the rules did on the last tick, as gauges (docs/metrics.md#rules).
 */
@ApplicationScoped
public class RuleMetrics {
    private static final String PREFIX = "joulie.rules.";
    private final MeterRegistry registry;
    private final AtomicReference<RuleReport> last = new AtomicReference<>(RuleReport.NONE);

    public RuleMetrics(MeterRegistry registry) {
        this.registry = registry;
        gauge("schedule.window.open", "1 while a schedule window is open", r -> r.window().isPresent() ? 1 : 0);
        gauge("hot.nodes", "Eligible nodes that count as hot (own temperature or rack mean)", r -> r.hotNodes().size());
        registry.gauge(PREFIX + "eco.nodes", Tags.of("rule", "hotspot"), last, ref -> ref.get().ecoByHotspot());
        registry.gauge(PREFIX + "eco.nodes", Tags.of("rule", "budget"), last,
                ref -> ref.get().budget().map(RuleReport.Budget::ecoNodes).orElse(0));
        gauge("power.budget.watts", "The configured power budget (NaN without one)",
                r -> r.budget().map(RuleReport.Budget::limitWatts).orElse(Double.NaN));
        gauge("power.estimate.watts", "Estimated summed package power of the plan (NaN while held or without a budget)",
                r -> r.budget().map(RuleReport.Budget::estimateWatts).orElse(Double.NaN));
        gauge("power.budget.met", "1 when the estimate fits the budget, 0 when it cannot be met (NaN without a budget)",
                r -> r.budget().map(b -> b.met() ? 1.0 : 0.0).orElse(Double.NaN));
    }

    private void gauge(String name, String description, ToDoubleFunction<RuleReport> f) {
        Gauge.builder(PREFIX + name, last, ref -> f.applyAsDouble(ref.get()))
                .description(description).register(registry);
    }

    @PreDestroy
    void close() {
        registry.getMeters().stream().filter(m -> m.getId().getName().startsWith(PREFIX)).toList().forEach(registry::remove);
    }

    /**
     * Records a tick's report; returns whether the budget just became unmeetable (a Warning Event is due:
     * one per episode, not one per tick).
     */
    public boolean record(RuleReport report) {
        RuleReport before = last.getAndSet(report);
        return unmet(report) && !unmet(before);
    }

    private static boolean unmet(RuleReport r) {
        return r.budget().map(b -> !b.met()).orElse(false);
    }
}
