package io.joulie.agent.k8s;

import io.joulie.agent.metrics.AgentMetrics;
import io.joulie.agent.routing.Route;
import io.joulie.agent.routing.Routing;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class HardwarePublisherTest {
    static final Route HOST = Routing.resolve(List.of(), "a");

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final List<NodeHardwareStatus> writes = new ArrayList<>();
    final AtomicInteger reads = new AtomicInteger();
    Optional<NodeHardwareStatus> held = Optional.empty();
    boolean registered = true;
    boolean failing;
    NodeHardwareStatus inventory = gpus(2);

    final HardwarePublisher publisher = new HardwarePublisher((node, route, boards, described) -> Optional.of(inventory),
            new HardwarePublisher.Sink() {
                @Override
                public Optional<NodeHardwareStatus> current(String node) {
                    reads.incrementAndGet();
                    return held;
                }

                @Override
                public boolean write(String node, NodeHardwareStatus status) {
                    if (failing) {
                        throw new IllegalStateException("403");
                    }
                    if (registered) {
                        writes.add(status);
                    }
                    return registered;
                }
            }, new AgentMetrics(registry));

    static NodeHardwareStatus gpus(int count) {
        return new NodeHardwareStatus(null, new NodeHardwareStatus.Gpu("nvidia", "x", count, null, NodeHardwareStatus.Control.NVML, null), null);
    }

    @Test
    void whatTheObjectHoldsIsReadOnceAndOnlyAChangeIsWritten() {
        held = Optional.of(gpus(2));
        publisher.publish("a", HOST, List.of(), Optional.empty());
        publisher.publish("a", HOST, List.of(), Optional.empty());
        assertThat(writes).isEmpty();
        assertThat(reads).hasValue(1);
        inventory = gpus(3);
        publisher.publish("a", HOST, List.of(), Optional.empty());
        publisher.publish("a", HOST, List.of(), Optional.empty());
        assertThat(writes).containsExactly(gpus(3));
    }

    @Test
    void aNodeNotRegisteredYetIsWrittenOnceItIsAndAFailureIsCountedAndRetried() {
        registered = false;
        publisher.publish("a", HOST, List.of(), Optional.empty());
        registered = true;
        publisher.publish("a", HOST, List.of(), Optional.empty());
        assertThat(writes).hasSize(1);

        inventory = gpus(4);
        failing = true;
        publisher.publish("a", HOST, List.of(), Optional.empty());
        assertThat(registry.get("joulie.agent.errors").tags("node", "a", "kind", "status").counter().count()).isEqualTo(1);
        failing = false;
        held = Optional.of(gpus(2));
        publisher.publish("a", HOST, List.of(), Optional.empty());
        assertThat(writes).containsExactly(gpus(2), gpus(4));
    }
}
