package io.joulie.testkit;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The mock server's server-side apply keeps each field manager's fields apart, as the tests on it rely on. */
class ServerSideApplyDispatcherTest {
    private KubernetesMockServer server;
    private KubernetesClient client;

    @BeforeEach
    void start() {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        server.init();
        ServerSideApplyDispatcher.install(server);
        client = server.createClient();
    }

    @AfterEach
    void stop() {
        client.close();
        server.destroy();
    }

    private ConfigMap apply(String manager, Map<String, String> data, Map<String, String> labels) {
        ConfigMap cm = new ConfigMapBuilder().withNewMetadata().withName("cm").withNamespace("ns").withLabels(labels).endMetadata()
                .withData(data).build();
        return client.resource(cm).patch(new PatchContext.Builder().withPatchType(PatchType.SERVER_SIDE_APPLY)
                .withFieldManager(manager).withForce(true).build(), cm);
    }

    @Test
    void anApplyCreatesThenMergesAndRemovesOnlyWhatItsManagerNoLongerNames() {
        apply("a", Map.of("one", "1", "two", "2"), Map.of("by", "a"));
        apply("b", Map.of("three", "3"), Map.of());
        ConfigMap after = apply("a", Map.of("one", "1'"), Map.of("by", "a"));

        assertThat(after.getData()).containsExactlyInAnyOrderEntriesOf(Map.of("one", "1'", "three", "3"));
        assertThat(client.configMaps().inNamespace("ns").withName("cm").get().getData())
                .containsExactlyInAnyOrderEntriesOf(Map.of("one", "1'", "three", "3"));
        assertThat(after.getMetadata().getLabels()).containsExactlyEntriesOf(Map.of("by", "a"));
    }

    @Test
    void otherRequestsReachTheCrudStoreUnchanged() {
        client.resource(new ConfigMapBuilder().withNewMetadata().withName("plain").withNamespace("ns").endMetadata()
                .withData(Map.of("k", "v")).build()).create();
        client.configMaps().inNamespace("ns").withName("plain").edit(c -> new ConfigMapBuilder(c).addToData("k2", "v2").build());

        assertThat(client.configMaps().inNamespace("ns").withName("plain").get().getData()).containsOnlyKeys("k", "k2");
    }

    @Test
    void aJsonPatchWhoseTestFailsIsA422AndChangesNothingOneWhoseTestHoldsIsApplied() {
        client.resource(new ConfigMapBuilder().withNewMetadata().withName("cm").withNamespace("ns")
                .withLabels(Map.of("profile", "eco")).endMetadata().build()).create();
        String patch = "[{\"op\":\"test\",\"path\":\"/metadata/labels/profile\",\"value\":\"%s\"},"
                + "{\"op\":\"replace\",\"path\":\"/metadata/labels/profile\",\"value\":\"performance\"}]";
        var cm = client.configMaps().inNamespace("ns").withName("cm");

        assertThatThrownBy(() -> cm.patch(PatchContext.of(PatchType.JSON), patch.formatted("draining")))
                .isInstanceOfSatisfying(io.fabric8.kubernetes.client.KubernetesClientException.class,
                        e -> assertThat(e.getCode()).isEqualTo(422));
        assertThat(cm.get().getMetadata().getLabels()).containsEntry("profile", "eco");

        cm.patch(PatchContext.of(PatchType.JSON), patch.formatted("eco"));
        assertThat(cm.get().getMetadata().getLabels()).containsEntry("profile", "performance");
    }
}
