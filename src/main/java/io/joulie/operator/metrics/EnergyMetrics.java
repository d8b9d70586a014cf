package io.joulie.operator.metrics;

import io.joulie.planner.ClusterContext;
import io.joulie.planner.EnergyEstimate;
import io.joulie.planner.ManagedNode;
import io.joulie.planner.NodeLoads;
import io.joulie.planner.Telemetry;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

/**
 * The energy eco saved against all performance, and the energy the managed nodes used, as counters the dashboard's
 * "Energy saved" panels read (docs/metrics.md, decision 205): each completed tick of the leader feeds
 * {@link EnergyEstimate} with every managed node's state, its package power from telemetry and its load (the cores its
 * Pods request over its allocatable cores). Without telemetry nothing is measured and the counters stay put.
 */
@ApplicationScoped
public class EnergyMetrics {
    static final String SAVED = "joulie.energy.saved.joules";
    static final String USED = "joulie.managed.energy.joules";
    static final String UNESTIMATED = "joulie.energy.saved.unestimated.seconds";

    private final MeterRegistry registry;
    private final NodeLoads loads;
    private final EnergyEstimate estimate = new EnergyEstimate();
    private final Counter saved;
    private final Counter performance;
    private final Counter eco;
    private final Counter unestimated;

    /** @param loads the cores the active Pods bound to a node request (the operator's view of the Pods) */
    @Inject
    public EnergyMetrics(MeterRegistry registry, NodeLoads loads) {
        this.registry = registry;
        this.loads = loads;
        // at 0 from the start (decision 18): increase() sees the first joules
        saved = Counter.builder(SAVED).description("Energy eco saved against all performance, estimated (CPU packages)")
                .register(registry);
        performance = used("performance");
        eco = used("eco");
        unestimated = Counter.builder(UNESTIMATED).description("Node-seconds in eco whose saving could not be estimated")
                .register(registry);
    }

    private Counter used(String profile) {
        return Counter.builder(USED).description("Measured CPU package energy of the managed nodes, by the profile they ran")
                .tag("profile", profile).register(registry);
    }

    /** One completed tick of the leader; {@code interval} is the planning interval (twice it bounds one step). */
    public synchronized void record(ClusterContext ctx, Duration interval) {
        Telemetry t = ctx.telemetry();
        if (t.status() == Telemetry.Status.DISABLED) {
            estimate.record(ctx.now(), interval.multipliedBy(2), List.of()); // nothing measured: nothing to learn or count
            return;
        }
        List<EnergyEstimate.Sample> samples = new ArrayList<>(ctx.nodes().size());
        for (ManagedNode m : ctx.nodes()) {
            OptionalDouble watts = t.live() ? t.power(m.name()).map(s -> OptionalDouble.of(s.value())).orElse(OptionalDouble.empty())
                    : OptionalDouble.empty();
            double load = m.cpuCores() > 0 ? loads.requestedCores(m.name()) / m.cpuCores() : Double.NaN;
            samples.add(new EnergyEstimate.Sample(m.name(), m.state(), watts, load));
        }
        EnergyEstimate.Step step = estimate.record(ctx.now(), interval.multipliedBy(2), samples);
        saved.increment(step.savedJoules());
        performance.increment(step.performanceJoules());
        eco.increment(step.ecoJoules());
        unestimated.increment(step.unestimatedSeconds());
    }

    @PreDestroy
    void close() {
        List.of(saved, performance, eco, unestimated).forEach(registry::remove);
    }
}
