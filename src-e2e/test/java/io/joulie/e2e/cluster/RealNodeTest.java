package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The real node's network shim as the API server reads it: two policies on Pod creation, each bound to the namespace. */
class RealNodeTest {
    @SuppressWarnings("unchecked")
    static Map<String, Object> spec(GenericKubernetesResource r) {
        return (Map<String, Object>) r.getAdditionalProperties().get("spec");
    }

    @Test
    @SuppressWarnings("unchecked")
    void theNetworkShimIsTwoPoliciesOnPodCreationBoundToTheNamespace() {
        KubernetesSerialization yaml = new KubernetesSerialization();
        List<GenericKubernetesResource> docs = java.util.Arrays.stream(RealNode.networkShim("admissionregistration.k8s.io/v1alpha1", "joulie-system", 16443, 18080, 19000)
                .split("(?m)^---$")).map(d -> yaml.unmarshal(d, GenericKubernetesResource.class)).toList();
        assertThat(docs).extracting(GenericKubernetesResource::getKind).containsExactly("MutatingAdmissionPolicy",
                "MutatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding");
        assertThat(docs).extracting(GenericKubernetesResource::getApiVersion).as("the API the control plane serves them on")
                .containsOnly("admissionregistration.k8s.io/v1alpha1");
        assertThat(docs).extracting(d -> d.getMetadata().getName()).containsExactly("e2e-real-node-network", "e2e-real-node-network",
                "e2e-real-node-operator-ports", "e2e-real-node-operator-ports");
        for (GenericKubernetesResource binding : List.of(docs.get(1), docs.get(3))) {
            assertThat(spec(binding).get("policyName")).isEqualTo(binding.getMetadata().getName());
            assertThat(spec(binding).get("matchResources").toString()).contains("kubernetes.io/metadata.name=joulie-system");
        }
        Map<String, Object> network = spec(docs.get(0));
        assertThat(network).doesNotContainKey("matchConditions").containsEntry("failurePolicy", "Fail");
        assertThat((List<Object>) network.get("mutations")).hasSize(1);
        assertThat(network.get("mutations").toString()).contains("hostNetwork: true", "KUBERNETES_SERVICE_HOST", "value: \"16443\"");
        Map<String, Object> ports = spec(docs.get(2));
        assertThat((List<Object>) ports.get("matchConditions")).hasSize(1);
        assertThat(ports.get("matchConditions").toString()).contains("== 'joulie-operator'");
        assertThat((List<Map<String, Object>>) ports.get("mutations")).extracting(m -> m.get("patchType"))
                .containsExactly("ApplyConfiguration", "JSONPatch");
        assertThat(ports.get("mutations").toString()).contains("value: \"18080\"", "value: \"19000\"", "port: 19000")
                .doesNotContain("%");
    }
}
