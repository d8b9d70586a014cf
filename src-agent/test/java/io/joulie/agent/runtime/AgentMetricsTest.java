package io.joulie.agent.runtime;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AgentMetricsTest {

    @Test
    void aNodesErrorCountersExistAtZeroFromItsFirstReadingAndLeaveWithTheNode() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AgentMetrics metrics = new AgentMetrics(registry);
        metrics.capPerPackage("n1", 60);
        for (String kind : new String[] {"control", "telemetry", "status", "labels", "reconcile"}) {
            assertThat(registry.get("joulie.agent.errors").tags("node", "n1", "kind", kind).counter().count())
                    .as("errors kind=%s", kind).isZero();
        }
        metrics.error("n1", "control");
        assertThat(registry.get("joulie.agent.errors").tags("node", "n1", "kind", "control").counter().count()).isEqualTo(1);
        metrics.forget("n1");
        assertThat(registry.find("joulie.agent.errors").counters()).isEmpty();
    }
}
