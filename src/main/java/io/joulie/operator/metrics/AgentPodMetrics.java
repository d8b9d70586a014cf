package io.joulie.operator.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.quarkus.runtime.Startup;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The agent pods as the installation controller last saw them (docs/metrics.md):
 * {@code joulie_operand_pods{operand="agent",state}} (the operator's own prefix: the agent exports {@code joulie_agent_*})
 * with the nodes that should run an agent ({@code desired}), the agents ready, and the pods that do not run and why:
 * not created ({@code not_created}: admission refused them), not placed ({@code unschedulable}), placed but not
 * starting ({@code failing}). The {@code JoulieAgentPodsNotRunning} alert reads them.
 */
@Startup // the series exist from the start, at 0, before any Joulie resource is reconciled
@ApplicationScoped
public class AgentPodMetrics {
    static final String NAME = "joulie.operand.pods";

    /** One observation of the agent pods. */
    public record Counts(int desired, int ready, int notCreated, int unschedulable, int failing) {
        public static final Counts NONE = new Counts(0, 0, 0, 0, 0);
    }

    private final MeterRegistry registry;
    private final AtomicReference<Counts> last = new AtomicReference<>(Counts.NONE);

    public AgentPodMetrics(MeterRegistry registry) {
        this.registry = registry;
        Map.<String, java.util.function.ToIntFunction<Counts>>of("desired", Counts::desired, "ready", Counts::ready,
                "not_created", Counts::notCreated, "unschedulable", Counts::unschedulable, "failing", Counts::failing)
                .forEach((state, f) -> registry.gauge(NAME, Tags.of("operand", "agent", "state", state), last, ref -> f.applyAsInt(ref.get())));
    }

    public void record(Counts counts) {
        last.set(counts);
    }

    @PreDestroy
    void close() {
        registry.getMeters().stream().filter(m -> m.getId().getName().equals(NAME)).toList().forEach(registry::remove);
    }
}
