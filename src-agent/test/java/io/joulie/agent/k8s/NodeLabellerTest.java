package io.joulie.agent.k8s;

import io.joulie.agent.metrics.AgentMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class NodeLabellerTest {
    static final Map<String, String> WANTED = Map.of("feature.joulie.io/rapl", "true", "feature.joulie.io/cpu-vendor", "intel");

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final List<Map<String, String>> patches = new ArrayList<>();
    final Map<String, Map<String, String>> cluster = new LinkedHashMap<>();
    int reads;
    boolean failing;

    final NodeLabeller labeller = new NodeLabeller("a", WANTED, new NodeLabeller.Nodes() {
        @Override
        public Optional<Map<String, String>> labels(String node) {
            reads++;
            if (failing) {
                throw new IllegalStateException("403 Forbidden");
            }
            return Optional.ofNullable(cluster.get(node));
        }

        @Override
        public void mergeLabels(String node, Map<String, String> labels) {
            patches.add(labels);
            cluster.get(node).putAll(labels);
        }
    }, new AgentMetrics(registry));

    @Test
    void onlyTheLabelsThatDifferArePatchedAndOnlyOnce() {
        cluster.put("a", new LinkedHashMap<>(Map.of("feature.joulie.io/rapl", "true", "joulie.io/managed", "true",
                "feature.joulie.io/cpu-vendor", "amd")));
        labeller.label();
        assertThat(patches).containsExactly(Map.of("feature.joulie.io/cpu-vendor", "intel"));
        assertThat(cluster.get("a")).containsEntry("joulie.io/managed", "true").containsAllEntriesOf(WANTED);

        labeller.label();
        assertThat(reads).isEqualTo(1);
    }

    @Test
    void aNodeThatIsNotRegisteredYetIsLabelledOnALaterPass() {
        labeller.label();
        assertThat(patches).isEmpty();
        cluster.put("a", new LinkedHashMap<>());
        labeller.label();
        assertThat(patches).containsExactly(WANTED);
    }

    @Test
    void aNodeThatAlreadyCarriesTheLabelsIsNotPatched() {
        cluster.put("a", new LinkedHashMap<>(WANTED));
        labeller.label();
        labeller.label();
        assertThat(patches).isEmpty();
        assertThat(reads).isEqualTo(1);
    }

    @Test
    void aFailureIsCountedAndRetried() {
        failing = true;
        labeller.label();
        assertThat(registry.get("joulie.agent.errors").tags("node", "a", "kind", "labels").counter().count()).isEqualTo(1);
        failing = false;
        cluster.put("a", new LinkedHashMap<>());
        labeller.label();
        assertThat(patches).containsExactly(WANTED);
    }
}
