package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.joulie.api.v1alpha1.JoulieApi;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A performance-only Pod bound straight to an eco node ({@code spec.nodeName}, past the scheduler) that the kubelet will
 * reject (NodeAffinity admission) is no performance-only Pod of that node: it triggers no rescue (M3 of the review).
 */
class PodFactsAdmissionTest {
    private final Map<String, Map<String, String>> nodeLabels = new HashMap<>();
    private final List<String> changes = new java.util.ArrayList<>();
    private final PodFacts facts = new PodFacts((key, before, after) -> changes.add(key + " " + before + " -> " + after),
            nodeLabels::get);

    private static Pod performancePod(String name, String node, String phase, boolean podScheduled) {
        PodBuilder b = new PodBuilder().withNewMetadata().withNamespace("ns").withName(name).endMetadata()
                .withNewSpec().withNodeName(node).addToNodeSelector(JoulieApi.POWER_PROFILE_LABEL, "performance").endSpec()
                .withNewStatus().withPhase(phase).endStatus();
        if (podScheduled) {
            b.editStatus().withConditions(new PodConditionBuilder().withType("PodScheduled").withStatus("True").build()).endStatus();
        }
        return b.build();
    }

    @Test
    void aPodTheKubeletWillRejectIsNotAPerformancePodOfItsNodeUntilItIsAdmitted() {
        nodeLabels.put("eco-1", Map.of(JoulieApi.POWER_PROFILE_LABEL, "eco"));
        nodeLabels.put("perf-1", Map.of(JoulieApi.POWER_PROFILE_LABEL, "performance"));

        facts.put(performancePod("flap", "eco-1", "Pending", false), 1);
        assertThat(facts.onNode("eco-1")).as("not admitted: no rescue").isEmpty();
        assertThat(facts.demand().performanceCores()).isZero();
        assertThat(facts.performanceCount()).isZero();

        // the same shape on a node that admits it counts at once
        facts.put(performancePod("direct", "perf-1", "Pending", false), 1);
        assertThat(facts.onNode("perf-1")).containsExactly("ns/direct");

        // one the scheduler (or the kubelet, on admission) marked PodScheduled counts whatever the labels say now
        facts.put(performancePod("raced", "eco-1", "Running", true), 1);
        assertThat(facts.onNode("eco-1")).containsExactly("ns/raced");

        // the eco node was relabelled performance before its kubelet got to the pod: the kubelet admits it and says so
        facts.put(performancePod("flap", "eco-1", "Running", true), 1);
        assertThat(facts.onNode("eco-1")).containsExactly("ns/flap", "ns/raced");
        assertThat(changes).contains("ns/flap eco-1 -> eco-1");

        // a node the Node watch does not know: counted (the safe side)
        facts.put(performancePod("unknown", "gone-1", "Pending", false), 1);
        assertThat(facts.onNode("gone-1")).containsExactly("ns/unknown");
    }

    @Test
    void aTerminatingPerformancePodCountsUntilItIsGone() {
        nodeLabels.put("eco-1", Map.of(JoulieApi.POWER_PROFILE_LABEL, "draining-performance"));
        Pod running = performancePod("ckpt", "eco-1", "Running", true);
        facts.put(running, 1);
        Pod terminating = new PodBuilder(running).editMetadata().withDeletionTimestamp("2026-11-27T12:00:00Z")
                .withDeletionGracePeriodSeconds(600L).endMetadata().build();

        facts.put(terminating, 1);
        assertThat(facts.onNode("eco-1")).as("its grace period runs under the performance cap").containsExactly("ns/ckpt");

        facts.remove(terminating);
        assertThat(facts.onNode("eco-1")).isEmpty();
    }
}
