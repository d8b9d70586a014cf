package io.joulie.planner;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PreferredSchedulingTermBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.joulie.planner.PodClass.ECO;
import static io.joulie.planner.PodClass.PERFORMANCE;
import static io.joulie.planner.PodClass.UNCONSTRAINED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class PodClassifierTest {
    private static final String KEY = "joulie.io/power-profile";

    private static NodeSelectorRequirement expr(String op, String... values) {
        return exprOn(KEY, op, values);
    }

    private static NodeSelectorRequirement exprOn(String key, String op, String... values) {
        var b = new NodeSelectorRequirementBuilder().withKey(key).withOperator(op);
        if (values.length > 0) {
            b.withValues(values);
        }
        return b.build();
    }

    private static NodeSelectorTerm term(NodeSelectorRequirement... exprs) {
        return new NodeSelectorTermBuilder().withMatchExpressions(exprs).build();
    }

    private static PodBuilder base() {
        return new PodBuilder().withNewMetadata().withNamespace("ns").withName("p").endMetadata()
                .withNewSpec().addNewContainer().withName("c").withImage("busybox").endContainer().endSpec();
    }

    private static Pod selector(Map<String, String> sel) {
        return base().editSpec().withNodeSelector(sel).endSpec().build();
    }

    private static Pod required(NodeSelectorTerm... terms) {
        return base().editSpec().withNewAffinity().withNewNodeAffinity()
                .withNewRequiredDuringSchedulingIgnoredDuringExecution().withNodeSelectorTerms(terms).endRequiredDuringSchedulingIgnoredDuringExecution()
                .endNodeAffinity().endAffinity().endSpec().build();
    }

    private static Pod selectorAndRequired(String value, NodeSelectorTerm... terms) {
        return new PodBuilder(required(terms)).editSpec().withNodeSelector(Map.of(KEY, value)).endSpec().build();
    }

    private static Pod preferredOnly(String op, String... values) {
        return base().editSpec().withNewAffinity().withNewNodeAffinity()
                .withPreferredDuringSchedulingIgnoredDuringExecution(new PreferredSchedulingTermBuilder()
                        .withWeight(100).withPreference(term(expr(op, values))).build())
                .endNodeAffinity().endAffinity().endSpec().build();
    }

    static Stream<Arguments> pods() {
        return Stream.of(
                // performance-only
                arguments("selector performance", selector(Map.of(KEY, "performance")), PERFORMANCE),
                arguments("selector performance among others", selector(Map.of("zone", "a", KEY, "performance")), PERFORMANCE),
                arguments("In [performance]", required(term(expr("In", "performance"))), PERFORMANCE),
                arguments("In [performance, foo]", required(term(expr("In", "performance", "foo"))), PERFORMANCE),
                arguments("NotIn [eco]", required(term(expr("NotIn", "eco"))), PERFORMANCE),
                arguments("NotIn [eco, foo]", required(term(expr("NotIn", "eco", "foo"))), PERFORMANCE),
                arguments("In [performance, eco] and NotIn [eco]",
                        required(term(expr("In", "performance", "eco"), expr("NotIn", "eco"))), PERFORMANCE),
                arguments("In [performance] with an unrelated expression",
                        required(term(exprOn("zone", "In", "a"), expr("In", "performance"))), PERFORMANCE),
                arguments("In [performance] with Exists", required(term(expr("Exists"), expr("In", "performance"))), PERFORMANCE),
                arguments("two terms, both performance",
                        required(term(expr("In", "performance")), term(expr("NotIn", "eco"))), PERFORMANCE),
                arguments("two terms, one unsatisfiable", required(term(expr("In", "foo")), term(expr("In", "performance"))), PERFORMANCE),
                arguments("selector performance and In [performance, eco]",
                        selectorAndRequired("performance", term(expr("In", "performance", "eco"))), PERFORMANCE),
                arguments("no selector on the key, affinity performance",
                        new PodBuilder(required(term(expr("In", "performance")))).editSpec().withNodeSelector(Map.of("zone", "a")).endSpec().build(),
                        PERFORMANCE),
                // eco-only
                arguments("selector eco", selector(Map.of(KEY, "eco")), ECO),
                arguments("In [eco]", required(term(expr("In", "eco"))), ECO),
                arguments("NotIn [performance]", required(term(expr("NotIn", "performance"))), ECO),
                arguments("two terms, both eco", required(term(expr("In", "eco")), term(expr("NotIn", "performance"))), ECO),
                // unconstrained
                arguments("no constraint", base().build(), UNCONSTRAINED),
                arguments("unrelated selector", selector(Map.of("zone", "a")), UNCONSTRAINED),
                arguments("selector with unknown value", selector(Map.of(KEY, "foo")), UNCONSTRAINED),
                arguments("selector draining-performance", selector(Map.of(KEY, "draining-performance")), UNCONSTRAINED),
                arguments("Exists", required(term(expr("Exists"))), UNCONSTRAINED),
                arguments("DoesNotExist", required(term(expr("DoesNotExist"))), UNCONSTRAINED),
                arguments("Gt", required(term(expr("Gt", "1"))), UNCONSTRAINED),
                arguments("Lt", required(term(expr("Lt", "1"))), UNCONSTRAINED),
                arguments("In [foo]", required(term(expr("In", "foo"))), UNCONSTRAINED),
                arguments("In [performance, eco]", required(term(expr("In", "performance", "eco"))), UNCONSTRAINED),
                arguments("NotIn [foo]", required(term(expr("NotIn", "foo"))), UNCONSTRAINED),
                arguments("NotIn [performance, eco]", required(term(expr("NotIn", "performance", "eco"))), UNCONSTRAINED),
                arguments("In [] without values", required(term(expr("In"))), UNCONSTRAINED),
                arguments("In [performance] and In [eco]", required(term(expr("In", "performance"), expr("In", "eco"))), UNCONSTRAINED),
                arguments("performance term ORed with an unconstrained term",
                        required(term(expr("In", "performance")), term(exprOn("zone", "In", "a"))), UNCONSTRAINED),
                arguments("performance term ORed with an eco term",
                        required(term(expr("In", "performance")), term(expr("In", "eco"))), UNCONSTRAINED),
                arguments("performance term ORed with Exists", required(term(expr("In", "performance")), term(expr("Exists"))), UNCONSTRAINED),
                // Kubernetes: a term without expressions or fields matches no node, so the performance term is the only way in
                arguments("term without expressions ORed with performance",
                        required(new NodeSelectorTermBuilder().build(), term(expr("In", "performance"))), PERFORMANCE),
                arguments("term with an empty expression list ORed with eco",
                        required(new NodeSelectorTermBuilder().withMatchExpressions(List.of()).build(), term(expr("In", "eco"))), ECO),
                arguments("only a term without expressions (matches no node)", required(new NodeSelectorTermBuilder().build()),
                        UNCONSTRAINED),
                arguments("a term of fields only ORed with performance (it may match any profile)",
                        required(new NodeSelectorTermBuilder().withMatchFields(new NodeSelectorRequirementBuilder()
                                .withKey("metadata.name").withOperator("In").withValues("n1").build()).build(),
                                term(expr("In", "performance"))), UNCONSTRAINED),
                arguments("preferred performance only", preferredOnly("In", "performance"), UNCONSTRAINED),
                arguments("preferred eco only", preferredOnly("In", "eco"), UNCONSTRAINED),
                arguments("other key named performance", required(term(exprOn("tier", "In", "performance"))), UNCONSTRAINED),
                arguments("selector performance but affinity eco (unsatisfiable)",
                        selectorAndRequired("performance", term(expr("In", "eco"))), UNCONSTRAINED),
                arguments("expression without operator",
                        required(new NodeSelectorTermBuilder().withMatchExpressions(
                                new NodeSelectorRequirementBuilder().withKey(KEY).withValues("performance").build()).build()),
                        UNCONSTRAINED)
        );
    }

    @ParameterizedTest(name = "[{index}] {0} -> {2}")
    @MethodSource("pods")
    void classify(String description, Pod pod, PodClass expected) {
        assertThat(PodClassifier.classify(pod)).as(description).isEqualTo(expected);
    }

    @Test
    void preferredAffinityDoesNotWidenARequiredConstraint() {
        Pod pod = new PodBuilder(required(term(expr("In", "performance")))).editSpec().editAffinity().editNodeAffinity()
                .withPreferredDuringSchedulingIgnoredDuringExecution(new PreferredSchedulingTermBuilder()
                        .withWeight(1).withPreference(term(expr("In", "eco"))).build())
                .endNodeAffinity().endAffinity().endSpec().build();

        assertThat(PodClassifier.classify(pod)).isEqualTo(PERFORMANCE);
    }

    @Test
    void missingSpecPartsAreUnconstrained() {
        assertThat(PodClassifier.classify((PodSpec) null)).isEqualTo(UNCONSTRAINED);
        assertThat(PodClassifier.classify(new PodBuilder().build())).isEqualTo(UNCONSTRAINED);
        assertThat(PodClassifier.classify(base().editSpec().withNewAffinity().endAffinity().endSpec().build())).isEqualTo(UNCONSTRAINED);
        assertThat(PodClassifier.classify(base().editSpec().withNewAffinity().withNewNodeAffinity().endNodeAffinity().endAffinity()
                .endSpec().build())).isEqualTo(UNCONSTRAINED);
        assertThat(PodClassifier.classify(required())).isEqualTo(UNCONSTRAINED);
    }

    @ParameterizedTest(name = "phase {0}, terminating {1} -> active {2}")
    @CsvSource({
            "Pending, false, true",
            "Running, false, true",
            "Unknown, false, true",
            ", false, true",          // no phase yet
            "Succeeded, false, false",
            "Failed, false, false",
            // a terminating pod runs through its grace period: it counts until it is gone
            "Running, true, true",
            "Pending, true, true",
            "Succeeded, true, false",
    })
    void isActive(String phase, boolean terminating, boolean active) {
        PodBuilder b = new PodBuilder(selector(Map.of(KEY, "performance")));
        if (phase != null) {
            b.withNewStatus().withPhase(phase).endStatus();
        }
        if (terminating) {
            b.editMetadata().withDeletionTimestamp("2025-01-01T00:00:00Z").endMetadata();
        }

        assertThat(PodClassifier.isActive(b.build())).isEqualTo(active);
    }

    /** A performance-only pod bound straight to {@code n1} ({@code spec.nodeName}), with the conditions given. */
    private static Pod boundTo(Pod pod, String... conditions) {
        PodBuilder b = new PodBuilder(pod).editSpec().withNodeName("n1").endSpec();
        if (conditions.length > 0) {
            b.withNewStatus().withPhase("Pending").withConditions(java.util.Arrays.stream(conditions)
                    .map(c -> new io.fabric8.kubernetes.api.model.PodConditionBuilder().withType(c).withStatus("True").build())
                    .toList()).endStatus();
        }
        return b.build();
    }

    @Test
    void aPodBoundStraightToANodeWhoseLabelsDoNotAdmitItMayNotRunThere() {
        Pod bySelector = boundTo(selector(Map.of(KEY, "performance")));
        Pod byAffinity = boundTo(required(term(expr("In", "performance", "draining-performance"))));
        Map<String, String> eco = Map.of(KEY, "eco", "zone", "a");
        Map<String, String> draining = Map.of(KEY, "draining-performance");
        Map<String, String> performance = Map.of(KEY, "performance");

        assertThat(PodClassifier.mayRunOn(bySelector, "n1", eco)).as("the kubelet will reject it").isFalse();
        assertThat(PodClassifier.mayRunOn(bySelector, "n1", draining)).isFalse();
        assertThat(PodClassifier.mayRunOn(bySelector, "n1", Map.of())).as("an unlabelled node").isFalse();
        assertThat(PodClassifier.mayRunOn(bySelector, "n1", performance)).isTrue();
        assertThat(PodClassifier.mayRunOn(byAffinity, "n1", eco)).isFalse();
        assertThat(PodClassifier.mayRunOn(byAffinity, "n1", draining)).isTrue();

        // once the scheduler or the kubelet marked it PodScheduled, it runs (or ran) there whatever the labels say now
        assertThat(PodClassifier.mayRunOn(boundTo(selector(Map.of(KEY, "performance")), "PodScheduled"), "n1", eco)).isTrue();
        assertThat(PodClassifier.mayRunOn(boundTo(selector(Map.of(KEY, "performance")), "Initialized"), "n1", eco)).isFalse();
    }

    @Test
    void nodeAdmissionFollowsKubernetesNodeAffinitySemantics() {
        Map<String, String> labels = Map.of(KEY, "eco", "zone", "a", "gen", "5");
        assertThat(PodClassifier.matches(required(term(expr("NotIn", "performance"))).getSpec(), "n1", labels)).isTrue();
        assertThat(PodClassifier.matches(required(term(exprOn("zone", "Exists"))).getSpec(), "n1", labels)).isTrue();
        assertThat(PodClassifier.matches(required(term(exprOn("rack", "Exists"))).getSpec(), "n1", labels)).isFalse();
        assertThat(PodClassifier.matches(required(term(exprOn("rack", "DoesNotExist"))).getSpec(), "n1", labels)).isTrue();
        assertThat(PodClassifier.matches(required(term(exprOn("gen", "Gt", "4"))).getSpec(), "n1", labels)).isTrue();
        assertThat(PodClassifier.matches(required(term(exprOn("gen", "Lt", "4"))).getSpec(), "n1", labels)).isFalse();
        assertThat(PodClassifier.matches(required(new NodeSelectorTermBuilder().build()).getSpec(), "n1", labels))
                .as("an empty term matches no node").isFalse();
        assertThat(PodClassifier.matches(required(new NodeSelectorTermBuilder().build(), term(expr("In", "eco"))).getSpec(), "n1",
                labels)).isTrue();
        NodeSelectorTerm byName = new NodeSelectorTermBuilder().withMatchFields(new NodeSelectorRequirementBuilder()
                .withKey("metadata.name").withOperator("In").withValues("n2").build()).build();
        assertThat(PodClassifier.matches(required(byName).getSpec(), "n1", labels)).isFalse();
        assertThat(PodClassifier.matches(required(byName).getSpec(), "n2", labels)).isTrue();
        assertThat(PodClassifier.matches(selectorAndRequired("eco", term(exprOn("zone", "In", "a"))).getSpec(), "n1", labels)).isTrue();
        assertThat(PodClassifier.matches(selectorAndRequired("eco", term(exprOn("zone", "In", "b"))).getSpec(), "n1", labels)).isFalse();
    }

    @Test
    void aPodWithoutMetadataOrStatusIsActive() {
        assertThat(PodClassifier.isActive(new Pod())).isTrue();
    }

    @Test
    void classificationDoesNotModifyThePod() {
        Pod pod = required(term(expr("In", "performance", "eco"), expr("NotIn", "eco")));
        List<String> before = List.copyOf(pod.getSpec().getAffinity().getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms().getFirst()
                .getMatchExpressions().getFirst().getValues());

        assertThat(PodClassifier.classify(pod)).isEqualTo(PERFORMANCE);
        assertThat(PodClassifier.classify(pod)).isEqualTo(PERFORMANCE);

        assertThat(pod.getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms().getFirst().getMatchExpressions().getFirst().getValues())
                .containsExactlyElementsOf(before);
    }
}
