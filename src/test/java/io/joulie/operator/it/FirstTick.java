package io.joulie.operator.it;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import jakarta.inject.Inject;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The first tick runs as soon as planning is possible — the watches have synced and this replica leads — not one
 * planning interval later: with a one-hour interval, nodes that exist when the operator starts get their
 * NodePowerProfiles at once, also when the sync or the Lease comes after the scheduler's first (skipped) tick.
 */
abstract class FirstTick {
    static final List<String> NODES = List.of("early-1", "early-2");

    public static class HourlyPlanning implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            // The late-sync test fails the Pod LISTs on the mock server, which can close a connection another informer
            // uses at the same moment; the installation controllers' informers retry then, instead of stopping the
            // application (CI: "Couldn't start source grafana-dashboard ... Connection was closed", after which the
            // next test classes ran with this profile's hourly planning).
            return Map.of("joulie.reconcile-interval", "1h", "quarkus.operator-sdk.stop-on-informer-error-during-startup", "false");
        }
    }

    /** The managed nodes exist before the operator starts. */
    static void nodes(KubernetesServer server) {
        for (String n : NODES) {
            server.getClient().nodes().resource(new NodeBuilder().withNewMetadata().withName(n)
                    .withLabels(Map.of(Cluster.MANAGED, "true")).endMetadata().withNewSpec().endSpec().build()).create();
        }
    }

    @Inject
    KubernetesClient client;

    void assertPlannedWithinSeconds(int seconds) {
        await().atMost(Duration.ofSeconds(seconds)).untilAsserted(() -> assertThat(NODES).allSatisfy(n -> {
            NodePowerProfile npp = client.resources(NodePowerProfile.class).withName(JoulieApi.nodePowerProfileName(n)).get();
            assertThat(npp).as("NodePowerProfile of %s", n).isNotNull();
            assertThat(npp.getStatus()).as("status of %s", n).isNotNull();
        }));
    }
}
