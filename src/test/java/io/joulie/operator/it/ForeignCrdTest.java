package io.joulie.operator.it;

import io.fabric8.kubernetes.api.model.Condition;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.operator.cluster.CrdOwnership;
import io.joulie.testkit.ServerSideApplyDispatcher;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static io.joulie.operator.it.Cluster.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Another project's CRD of one of Joulie's names (the Go Joulie's {@code nodehardwares.joulie.io}): the operator
 * does not act on the {@code Joulie} resource (no agent DaemonSet, no other object) and its status says which CRD is
 * foreign and what to do, as {@code Degraded}; the planner does not plan. The CRDs the Operator SDK applies here carry no marker; the test marks
 * three of them as the install does and leaves the fourth foreign.
 */
@QuarkusTest
@TestProfile(ForeignCrdTest.CrdCheck.class)
@WithKubernetesTestServer(setup = ServerSideApplyDispatcher.Setup.class)
class ForeignCrdTest extends OperatorTest {
    public static class CrdCheck implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("joulie.crd-check", "true");
        }
    }

    @Test
    void aForeignCrdOfOneOfOurNamesStopsTheInstallationAndTheStatusSaysWhy() {
        for (String name : CrdOwnership.CRDS) {
            if (!name.equals("nodehardwares.joulie.io")) {
                client.apiextensions().v1().customResourceDefinitions().withName(name)
                        .edit(crd -> {
                            crd.getMetadata().setAnnotations(Map.of(CrdOwnership.MARKER, CrdOwnership.MARKER_VALUE));
                            return crd;
                        });
            }
        }
        Joulie j = new Joulie();
        j.getMetadata().setName("joulie");
        j.setSpec(new JoulieSpec(JoulieSpec.Agent.of("reconcileInterval", "30s")));
        client.resource(j).create();

        await().atMost(WAIT).untilAsserted(() -> {
            Condition degraded = condition("Degraded");
            assertThat(degraded).isNotNull();
            assertThat(degraded.getStatus()).isEqualTo("True");
            assertThat(degraded.getReason()).isEqualTo("ForeignCustomResourceDefinition");
            // the operator may have looked before the other three were marked (its first tick): then all four are named
            assertThat(degraded.getMessage()).contains("nodehardwares.joulie.io", "without the annotation joulie.io/schema: "
                    + "joulie-io/joulie", "Coming from the Go Joulie");
        });
        cluster.managedNode("node-a");
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).untilAsserted(() -> {
            assertThat(client.apps().daemonSets().inAnyNamespace().list().getItems()).as("agent DaemonSets").isEmpty();
            assertThat(client.services().inAnyNamespace().list().getItems()).as("metrics Services").isEmpty();
            assertThat(cluster.profile("node-a")).as("a managed node's NodePowerProfile").isNull();
        });
        assertThat(Cluster.metric("joulie_ticks_total", "result=\"foreign_crd\"")).as("ticks that did not plan").isPositive();
    }

    Condition condition(String type) {
        Joulie j = client.resources(Joulie.class).withName("joulie").get();
        return j == null || j.getStatus() == null || j.getStatus().conditions() == null ? null
                : j.getStatus().conditions().stream().filter(c -> c.getType().equals(type)).findFirst().orElse(null);
    }
}
