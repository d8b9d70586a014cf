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
    private volatile double lastEstimate;

    public RuleMetrics(MeterRegistry registry) {
        this.registry = registry;
        gauge("schedule.window.open", "1 while a schedule window is open", r -> r.window().isPresent() ? 1 : 0);
        gauge("hot.nodes", "Eligible nodes that count as hot (own temperature or rack mean)", r -> r.hotNodes().size());
        registry.gauge(PREFIX + "eco.nodes", Tags.of("rule", "hotspot"), last, ref -> ref.get().ecoByHotspot());
        registry.gauge(PREFIX + "eco.nodes", Tags.of("rule", "budget"), last,
                ref -> ref.get().budget().map(RuleReport.Budget::ecoNodes).orElse(0));
        // no sentinels (decision 203): _configured says whether a budget is set; without one the others read 0, 0, 1
        gauge("power.budget.configured", "1 when spec.policy.powerBudget is set", r -> r.budget().isPresent() ? 1 : 0);
        gauge("power.budget.watts", "The configured power budget (0 without one)",
                r -> r.budget().map(RuleReport.Budget::limitWatts).orElse(0.0));
        gauge("power.budget.held", "1 while telemetry is out and the budget holds the count of the last tick with data",
                r -> r.budget().map(b -> Double.isNaN(b.estimateWatts()) ? 1 : 0).orElse(0));
        Gauge.builder(PREFIX + "power.estimate.watts", this, RuleMetrics::estimate)
                .description("Estimated summed package power of the plan (the last one while held; 0 without a budget)")
                .register(registry);
        gauge("power.budget.met", "0 when the estimate does not fit the budget, 1 otherwise (also without a budget)",
                r -> r.budget().map(b -> b.met() ? 1.0 : 0.0).orElse(1.0));
    }

    /** The last estimate that was computed while a budget was set: held ticks keep the one before, no budget reads 0. */
    private double estimate() {
        return last.get().budget().isEmpty() ? 0 : lastEstimate;
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
        report.budget().map(RuleReport.Budget::estimateWatts).filter(Double::isFinite).ifPresent(e -> lastEstimate = e);
        RuleReport before = last.getAndSet(report);
        return unmet(report) && !unmet(before);
    }

    private static boolean unmet(RuleReport r) {
        return r.budget().map(b -> !b.met()).orElse(false);
    }
}
