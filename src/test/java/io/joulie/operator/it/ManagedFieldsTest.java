package io.joulie.operator.it;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.joulie.testkit.ServerSideApplyDispatcher;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator's client reads Pods (and Nodes and Events) without their managedFields, and keeps every other field; the
 * kinds the {@code Joulie} workflow applies keep them (JOSDK's server-side-apply matcher reads them).
 */
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

    @Test
    void keepsTheManagedFieldsOfWhatTheWorkflowApplies() {
        String json = """
                {"apiVersion": "apps/v1", "kind": "DaemonSet",
                 "metadata": {"name": "joulie-agent", "namespace": "ns", "resourceVersion": "7",
                   "managedFields": [{"manager": "joulie", "operation": "Apply", "apiVersion": "apps/v1",
                     "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:minReadySeconds": {}}}}]},
                 "spec": {"minReadySeconds": 3}}
                """;
        DaemonSet ds = client.getKubernetesSerialization().unmarshal(json, DaemonSet.class);
        assertThat(ds.getMetadata().getManagedFields()).singleElement().satisfies(f -> {
            assertThat(f.getManager()).isEqualTo("joulie");
            assertThat(f.getOperation()).isEqualTo("Apply");
        });
        Node node = client.getKubernetesSerialization().unmarshal(json.replace("apps/v1", "v1").replace("DaemonSet", "Node"),
                Node.class);
        assertThat(node.getMetadata().getManagedFields()).isNullOrEmpty();
    }
}
