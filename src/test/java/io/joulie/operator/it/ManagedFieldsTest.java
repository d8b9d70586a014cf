package io.joulie.operator.it;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.joulie.testkit.ServerSideApplyDispatcher;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The operator's client reads objects without their managedFields, and keeps every other field. */
@QuarkusTest
@WithKubernetesTestServer(setup = ServerSideApplyDispatcher.Setup.class)
class ManagedFieldsTest {
    @Inject
    KubernetesClient client;

    @Test
    void readsObjectsWithoutManagedFields() {
        String json = """
                {"apiVersion": "v1", "kind": "Pod",
                 "metadata": {"name": "p", "namespace": "ns", "resourceVersion": "7", "labels": {"app": "x"},
                   "managedFields": [{"manager": "kubelet", "operation": "Update", "apiVersion": "v1",
                     "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {"f:phase": {}}}}]},
                 "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "i"}]},
                 "status": {"phase": "Running"}}
                """;
        Pod pod = client.getKubernetesSerialization().unmarshal(json, Pod.class);
        assertThat(pod.getMetadata().getManagedFields()).isNullOrEmpty();
        assertThat(pod.getMetadata().getResourceVersion()).isEqualTo("7");
        assertThat(pod.getMetadata().getLabels()).containsEntry("app", "x");
        assertThat(pod.getSpec().getNodeName()).isEqualTo("n1");
        assertThat(pod.getStatus().getPhase()).isEqualTo("Running");
        assertThat(pod.getMetadata().getAdditionalProperties()).doesNotContainKey("managedFields");
    }
}
