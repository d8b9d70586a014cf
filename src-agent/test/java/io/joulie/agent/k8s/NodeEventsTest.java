package io.joulie.agent.k8s;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.joulie.agent.metrics.AgentMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.InstantSource;

import static org.assertj.core.api.Assertions.assertThat;

@EnableKubernetesMockClient(crud = true)
class NodeEventsTest {
    static KubernetesClient client;

    /** The Event the agent records at start when the host's MSR devices cannot be read: a Warning on its Node. */
    @Test
    void msrUnavailableIsAWarningAboutTheNodeWithTheReason() {
        String why = "MSR reads refused (open /host/dev/cpu/0/msr: EPERM (1, operation not permitted)): ...";
        new NodeEvents(client, InstantSource.fixed(Instant.parse("2026-11-27T12:00:00Z")), new AgentMetrics(new SimpleMeterRegistry()))
                .record("worker-1", NodeEvents.Reason.MsrUnavailable, why);
        assertThat(client.v1().events().inNamespace("default").list().getItems()).singleElement().satisfies((Event e) -> {
            assertThat(e.getType()).isEqualTo("Warning");
            assertThat(e.getReason()).isEqualTo("MsrUnavailable");
            assertThat(e.getMessage()).isEqualTo(why);
            assertThat(e.getInvolvedObject().getKind()).isEqualTo("Node");
            assertThat(e.getInvolvedObject().getName()).isEqualTo("worker-1");
            assertThat(e.getSource().getComponent()).isEqualTo("joulie-agent");
        });
    }
}
