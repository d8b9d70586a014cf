package io.joulie.operator.runtime;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The harness's own reading of node affinity ({@link NodeAffinityOracle}), case by case from the Kubernetes API reference. */
class NodeAffinityOracleTest {
    static final String KEY = "joulie.io/power-profile";

    static NodeSelectorTerm term(String operator, String... values) {
        return new NodeSelectorTermBuilder().withMatchExpressions(new NodeSelectorRequirementBuilder().withKey(KEY)
                .withOperator(operator).withValues(values).build()).build();
    }

    static Pod pod(Map<String, String> selector, List<NodeSelectorTerm> terms) {
        PodBuilder b = new PodBuilder().withNewMetadata().withName("p").endMetadata().withNewSpec().withNodeSelector(selector).endSpec();
        if (terms != null) {
            b.editSpec().withNewAffinity().withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
                    .withNodeSelectorTerms(terms).endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity()
                    .endAffinity().endSpec();
        }
        return b.build();
    }

    static Map<String, String> labelled(String profile) {
        return profile == null ? Map.of("joulie.io/managed", "true") : Map.of("joulie.io/managed", "true", KEY, profile);
    }

    @Test
    void aNodeSelectorNeedsEveryEntryAndTermsAreAlternativesOfConjunctions() {
        Pod selector = pod(Map.of(KEY, "performance"), null);
        assertThat(NodeAffinityOracle.admits(selector, "n", labelled("performance"))).isTrue();
        assertThat(NodeAffinityOracle.admits(selector, "n", labelled("draining-performance"))).isFalse();
        assertThat(NodeAffinityOracle.admits(selector, "n", labelled(null))).isFalse();

        Pod either = pod(null, List.of(term("In", "performance"), term("In", "eco")));
        assertThat(NodeAffinityOracle.admits(either, "n", labelled("eco"))).isTrue();
        assertThat(NodeAffinityOracle.performanceOnly(either, "n", labelled(null))).isFalse();

        NodeSelectorTerm both = new NodeSelectorTermBuilder().withMatchExpressions(
                new NodeSelectorRequirementBuilder().withKey(KEY).withOperator("Exists").build(),
                new NodeSelectorRequirementBuilder().withKey(KEY).withOperator("NotIn").withValues("eco").build()).build();
        Pod and = pod(null, List.of(both));
        assertThat(NodeAffinityOracle.admits(and, "n", labelled("performance"))).isTrue();
        assertThat(NodeAffinityOracle.admits(and, "n", labelled(null))).isFalse();
    }

    @Test
    void notInAdmitsAnAbsentLabelAndDoesNotExistOnlyThat() {
        Pod notEco = pod(null, List.of(term("NotIn", "eco")));
        assertThat(NodeAffinityOracle.admits(notEco, "n", labelled(null))).isTrue();
        assertThat(NodeAffinityOracle.admits(notEco, "n", labelled("draining-performance"))).isTrue();
        assertThat(NodeAffinityOracle.admits(notEco, "n", labelled("eco"))).isFalse();
        assertThat(NodeAffinityOracle.performanceOnly(notEco, "n", labelled(null))).isTrue();

        Pod unlabelled = pod(null, List.of(term("DoesNotExist")));
        assertThat(NodeAffinityOracle.admits(unlabelled, "n", labelled(null))).isTrue();
        assertThat(NodeAffinityOracle.admits(unlabelled, "n", labelled("performance"))).isFalse();
        assertThat(NodeAffinityOracle.performanceOnly(unlabelled, "n", labelled(null))).isFalse();
    }

    @Test
    void anEmptyTermMatchesNoNodeSoItNarrowsNothing() {
        Pod withEmpty = pod(null, List.of(term("In", "performance"), new NodeSelectorTerm()));
        assertThat(NodeAffinityOracle.admits(withEmpty, "n", labelled("eco"))).isFalse();
        assertThat(NodeAffinityOracle.performanceOnly(withEmpty, "n", labelled(null))).isTrue();

        Pod onlyEmpty = pod(null, List.of(new NodeSelectorTerm()));
        assertThat(NodeAffinityOracle.admits(onlyEmpty, "n", labelled("performance"))).isFalse();
        assertThat(NodeAffinityOracle.performanceOnly(onlyEmpty, "n", labelled(null))).isFalse();
    }

    @Test
    void matchFieldsNamesTheNodeAndNumbersCompareForGtAndLt() {
        NodeSelectorTerm onN1 = new NodeSelectorTermBuilder().withMatchFields(new NodeSelectorRequirementBuilder()
                .withKey("metadata.name").withOperator("In").withValues("n1").build()).build();
        Pod daemon = pod(Map.of(KEY, "performance"), List.of(onN1));
        assertThat(NodeAffinityOracle.admits(daemon, "n1", labelled("performance"))).isTrue();
        assertThat(NodeAffinityOracle.admits(daemon, "n2", labelled("performance"))).isFalse();

        NodeSelectorTerm big = new NodeSelectorTermBuilder().withMatchExpressions(new NodeSelectorRequirementBuilder()
                .withKey("cores").withOperator("Gt").withValues("64").build()).build();
        Pod large = pod(null, List.of(big));
        assertThat(NodeAffinityOracle.admits(large, "n", Map.of("cores", "128"))).isTrue();
        assertThat(NodeAffinityOracle.admits(large, "n", Map.of("cores", "64"))).isFalse();
        assertThat(NodeAffinityOracle.admits(large, "n", Map.of("cores", "many"))).isFalse();
    }

    @Test
    void aTerminatingPodRunsUntilItIsGone() {
        Pod terminating = new PodBuilder(pod(Map.of(KEY, "performance"), null)).editMetadata()
                .withDeletionTimestamp("2026-11-21T12:00:00Z").endMetadata().withNewStatus().withPhase("Running").endStatus().build();
        assertThat(NodeAffinityOracle.running(terminating)).isTrue();
        Pod failed = new PodBuilder(terminating).editStatus().withPhase("Failed").endStatus().build();
        assertThat(NodeAffinityOracle.running(failed)).isFalse();
    }
}
