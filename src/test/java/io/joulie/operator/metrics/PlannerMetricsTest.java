package io.joulie.operator.metrics;

import io.joulie.planner.ActuationAdapter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PlannerMetricsTest {

    @Test
    void failureCountersExistAtZeroForEveryKnownLabelValueAndCountFromThere() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PlannerMetrics metrics = new PlannerMetrics(registry);
        for (String kind : new String[] {"tick", "node", "release", "conflict", "event"}) {
            assertThat(registry.get("joulie.errors").tag("kind", kind).counter().count()).as("errors kind=%s", kind).isZero();
        }
        for (String result : new String[] {"evicted", "refused", "gone", "failed"}) {
            assertThat(registry.get("joulie.evictions").tag("result", result).counter().count()).as("evictions result=%s", result).isZero();
        }
        metrics.error(ErrorKind.NODE);
        metrics.eviction(ActuationAdapter.EvictionResult.REFUSED);
        assertThat(registry.get("joulie.errors").tag("kind", "node").counter().count()).isEqualTo(1);
        assertThat(registry.get("joulie.evictions").tag("result", "refused").counter().count()).isEqualTo(1);
        assertThat(registry.get("joulie.errors").counters()).hasSize(5);
    }
}
