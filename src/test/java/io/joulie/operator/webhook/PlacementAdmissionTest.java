package io.joulie.operator.webhook;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.joulie.planner.EcoPlacement;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PlacementAdmissionTest {
    static final KubernetesSerialization JSON = new KubernetesSerialization();
    final PlacementAdmission admission = new PlacementAdmission(JSON);

    static String review(Pod pod) {
        return JSON.asJson(Map.of("apiVersion", "admission.k8s.io/v1", "kind", "AdmissionReview", "request",
                Map.of("uid", "u-1", "operation", "CREATE", "kind", Map.of("group", "", "version", "v1", "kind", "Pod"),
                        "object", pod)));
    }

    static Pod pod(Map<String, String> annotations) {
        return new PodBuilder().withNewMetadata().withName("p").withAnnotations(annotations).endMetadata().withNewSpec()
                .addNewContainer().withName("c").withImage("i").endContainer().endSpec().build();
    }

    @Test
    void anEcoTolerantPodGetsThePatchTheRuleAsksFor() {
        Pod pod = pod(Map.of("joulie.io/workload-class", "eco"));
        PlacementAdmission.Answer a = admission.review(review(pod));

        assertThat(a.outcome()).isEqualTo(PlacementAdmission.Outcome.PATCHED);
        AdmissionReview out = JSON.unmarshal(a.body(), AdmissionReview.class);
        assertThat(out.getResponse().getUid()).isEqualTo("u-1");
        assertThat(out.getResponse().getAllowed()).isTrue();
        assertThat(out.getResponse().getPatchType()).isEqualTo("JSONPatch");
        List<?> patch = JSON.unmarshal(new String(Base64.getDecoder().decode(out.getResponse().getPatch()), StandardCharsets.UTF_8),
                List.class);
        assertThat(patch).hasSize(1);
        Map<?, ?> op = (Map<?, ?>) patch.get(0);
        assertThat(op.get("op")).isEqualTo("add");
        assertThat(op.get("path")).isEqualTo("/spec/affinity");
        io.fabric8.kubernetes.api.model.Affinity value = JSON.convertValue(op.get("value"), io.fabric8.kubernetes.api.model.Affinity.class);
        assertThat(JSON.asJson(value)).isEqualTo(JSON.asJson(EcoPlacement.apply(pod).getSpec().getAffinity()));
        assertThat(EcoPlacement.prefersEco(new io.fabric8.kubernetes.api.model.PodSpecBuilder().withAffinity(value).build())).isTrue();
    }

    /** The Pod as the API server leaves it after the answer's JSON patch. */
    static Pod patched(Pod pod, PlacementAdmission.Answer a) {
        AdmissionReview out = JSON.unmarshal(a.body(), AdmissionReview.class);
        if (out.getResponse().getPatch() == null) {
            return pod;
        }
        com.fasterxml.jackson.databind.ObjectMapper m = new com.fasterxml.jackson.databind.ObjectMapper();
        try {
            com.fasterxml.jackson.databind.JsonNode patch = m.readTree(Base64.getDecoder().decode(out.getResponse().getPatch()));
            com.fasterxml.jackson.databind.JsonNode result = io.fabric8.zjsonpatch.JsonPatch.apply(patch, m.readTree(JSON.asJson(pod)));
            return JSON.unmarshal(m.writeValueAsString(result), Pod.class);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void inANamespaceWhoseDefaultIsEcoAnUndeclaredPodIsAnnotatedAndPrefersEco() {
        Pod none = pod(null);
        none.getMetadata().setAnnotations(null);
        Pod other = pod(Map.of("team", "a"));
        Pod empty = pod(Map.of());
        for (Pod in : List.of(none, other, empty)) {
            PlacementAdmission.Answer a = admission.review(review(in), true);
            assertThat(a.outcome()).isEqualTo(PlacementAdmission.Outcome.NAMESPACE_DEFAULT);
            Pod out = patched(in, a);
            assertThat(out.getMetadata().getAnnotations()).containsEntry("joulie.io/workload-class", "eco");
            assertThat(JSON.asJson(out)).as("the same Pod the pure rule makes").isEqualTo(JSON.asJson(EcoPlacement.applyNamespaceDefault(in)));
            if (in == other) {
                assertThat(out.getMetadata().getAnnotations()).containsEntry("team", "a");
            }
        }
        // the Pod's own word stands: a class of its own, or the power profile named in its spec
        Pod standard = pod(Map.of("joulie.io/workload-class", "standard"));
        assertThat(admission.review(review(standard), true).outcome()).isEqualTo(PlacementAdmission.Outcome.UNCHANGED);
        Pod pinned = new PodBuilder(pod(Map.of())).editSpec().withNodeSelector(Map.of("joulie.io/power-profile", "performance"))
                .endSpec().build();
        assertThat(admission.review(review(pinned), true).outcome()).isEqualTo(PlacementAdmission.Outcome.UNCHANGED);
        // a declared Pod there is patched as anywhere else
        Pod eco = pod(Map.of("joulie.io/workload-class", "eco"));
        PlacementAdmission.Answer a = admission.review(review(eco), true);
        assertThat(a.outcome()).isEqualTo(PlacementAdmission.Outcome.PATCHED);
        assertThat(JSON.asJson(patched(eco, a))).isEqualTo(JSON.asJson(EcoPlacement.apply(eco)));
        // outside such a namespace an undeclared Pod is left alone
        assertThat(admission.review(review(other), false).outcome()).isEqualTo(PlacementAdmission.Outcome.UNCHANGED);
    }

    @Test
    void otherPodsAreAllowedUnchanged() {
        PlacementAdmission.Answer a = admission.review(review(pod(Map.of("joulie.io/workload-class", "performance"))));

        assertThat(a.outcome()).isEqualTo(PlacementAdmission.Outcome.UNCHANGED);
        AdmissionReview out = JSON.unmarshal(a.body(), AdmissionReview.class);
        assertThat(out.getResponse().getAllowed()).isTrue();
        assertThat(out.getResponse().getPatch()).isNull();
    }

    @Test
    void aReviewWithoutAPodIsAllowedAndOneWithoutARequestIsRefused() {
        String noObject = JSON.asJson(Map.of("apiVersion", "admission.k8s.io/v1", "kind", "AdmissionReview", "request",
                Map.of("uid", "u-2", "operation", "CREATE")));
        PlacementAdmission.Answer a = admission.review(noObject);
        assertThat(a.outcome()).isEqualTo(PlacementAdmission.Outcome.UNREADABLE);
        assertThat(JSON.unmarshal(a.body(), AdmissionReview.class).getResponse().getAllowed()).isTrue();

        assertThatThrownBy(() -> admission.review("{\"kind\":\"AdmissionReview\"}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("request uid");
        assertThatThrownBy(() -> admission.review("not json")).isInstanceOf(IllegalArgumentException.class);
    }
}
