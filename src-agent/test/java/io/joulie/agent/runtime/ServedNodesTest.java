package io.joulie.agent.runtime;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.joulie.agent.config.AgentMode;
import io.joulie.agent.config.AgentSettings;
import io.joulie.agent.host.HostRoots;
import io.joulie.agent.pool.Sharding;
import io.joulie.api.text.LabelSelector;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class ServedNodesTest {
    final MemoryView view = new MemoryView();

    static AgentSettings pool(int shards, int shard) {
        return new AgentSettings(AgentMode.POOL, Optional.empty(), Duration.ofSeconds(20), HostRoots.host(), true,
                LabelSelector.parse("joulie.io/managed=true"), shards, shard, Path.of("/var/lib/joulie"), 10,
                AgentSettings.DEFAULT_NVML_LIBRARY);
    }

    @Test
    void aNodeAgentServesItsNodeOnly() {
        ServedNodes served = new ServedNodes(new AgentSettings(AgentMode.NODE, Optional.of("w1"), Duration.ofSeconds(20),
                HostRoots.host(), true, LabelSelector.parse(""), 1, 0, Path.of("/var/lib/joulie"), 10, AgentSettings.DEFAULT_NVML_LIBRARY), view);
        assertThat(served.all()).containsExactly("w1");
        assertThat(served.serves("w1")).isTrue();
        assertThat(served.serves("w2")).isFalse();
    }

    @Test
    void poolAgentsShareTheMatchingNodesByShard() {
        IntStream.range(0, 20).forEach(i -> view.put(new NodeBuilder().withNewMetadata().withName("sim-" + i)
                .addToLabels("joulie.io/managed", "true").endMetadata().build()));
        view.put(new NodeBuilder().withNewMetadata().withName("other").endMetadata().build());
        ServedNodes first = new ServedNodes(pool(2, 0), view);
        ServedNodes second = new ServedNodes(pool(2, 1), view);

        assertThat(first.all()).isNotEmpty().doesNotContainAnyElementsOf(second.all());
        assertThat(first.all().size() + second.all().size()).isEqualTo(20);
        assertThat(first.all()).allMatch(n -> Sharding.shardOf(n, 2) == 0).allMatch(first::serves);
        assertThat(first.serves("other")).isFalse();
        assertThat(second.serves("other")).isFalse();
        assertThat(first.serves("missing")).isFalse();
    }
}
