package io.joulie.operator.it;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.testkit.ServerSideApplyDispatcher;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.joulie.operator.it.Cluster.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Objects written under a newer CRD (values of an enum this version does not know): the watches go on and the operator
 * plans, and each such object gets a Warning naming the fields read as unset.
 */
@QuarkusTest
@WithKubernetesTestServer(setup = ServerSideApplyDispatcher.Setup.class)
class UnknownValuesTest extends TickedOperatorTest {

    @Test
    void anUnknownEnumValueIsReportedOnItsObjectAndTheWatchesGoOn() {
        cluster.managedNode("node-a");
        var npps = client.genericKubernetesResources(JoulieApi.API_VERSION, "NodePowerProfile");
        GenericKubernetesResource npp = npps.resource(new GenericKubernetesResourceBuilder().withApiVersion(JoulieApi.API_VERSION)
                .withKind("NodePowerProfile").withNewMetadata().withName("node-node-a").endMetadata()
                .withAdditionalProperties(Map.of("spec", Map.of("nodeName", "node-a", "profile", "turbo",
                        "cpu", Map.of("packagePowerCapWatts", 5000)))).build()).create();
        npp.setAdditionalProperty("status", Map.of("state", "Hibernating", "since", "2026-11-21T12:00:00Z", "reason", "a newer operator",
                "applied", Map.of("generation", 1, "cpu", Map.of("result", "Throttled", "backend", "powercap"))));
        npps.resource(npp).updateStatus();

        ticks.tick();

        assertThat(view.unsynced()).as("the watches go on").isEmpty();
        assertThat(cluster.profile("node-a").getSpec().profile()).as("the operator rewrites what it owns").isEqualTo(Profile.PERFORMANCE);
        assertThat(cluster.state("node-a")).isEqualTo(PowerState.ActivePerformance);
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(cluster.events("UnknownValue")).anySatisfy(e -> {
                assertThat(e.getType()).isEqualTo("Warning");
                assertThat(e.getInvolvedObject().getName()).isEqualTo("node-node-a");
                assertThat(e.getMessage()).isEqualTo("spec.profile, status.state, status.applied.cpu.result are missing or hold a "
                        + "value this operator version does not know; read as unset");
            });
        });
    }
}
