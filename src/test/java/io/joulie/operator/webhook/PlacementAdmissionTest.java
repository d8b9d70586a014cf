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
