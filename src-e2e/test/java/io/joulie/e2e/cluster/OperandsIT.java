package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Scenario 3, operands: the operator (as its own ServiceAccount) turns the {@code joulie} resource into the agent
 * DaemonSet; the real DaemonSet controller makes one Pod per managed kwok node, which kwok runs; the
 * {@code Joulie} status counts them from the real objects. Every managed node gets a NodePowerProfile owned by
 * its Node, and the real garbage collector removes it with the Node.
 */
@Order(3)
class OperandsIT extends ClusterScenario {

    @Test
    void theAgentDaemonSetRunsOnEveryManagedNodeAndTheStatusCountsItsPods() {
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            DaemonSet ds = cluster.admin.apps().daemonSets().inNamespace(RealCluster.NAMESPACE).withName("joulie-agent").get();
            assertThat(ds).as("DaemonSet joulie-agent").isNotNull();
            assertThat(ds.getStatus().getNumberReady()).as("agent pods ready").isEqualTo(RealCluster.MANAGED.size());
            List<Pod> pods = cluster.admin.pods().inNamespace(RealCluster.NAMESPACE)
                    .withLabels(ds.getSpec().getSelector().getMatchLabels()).list().getItems();
            assertThat(pods).extracting(p -> p.getSpec().getNodeName())
                    .containsExactlyInAnyOrderElementsOf(RealCluster.MANAGED);
            assertThat(pods).allSatisfy(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Running"));
            Joulie joulie = cluster.admin.resources(Joulie.class).withName("joulie").get();
            assertThat(joulie.getStatus()).isNotNull();
            assertThat(joulie.getStatus().agents().desired()).isEqualTo(RealCluster.MANAGED.size());
            assertThat(joulie.getStatus().agents().ready()).isEqualTo(RealCluster.MANAGED.size());
            assertThat(joulie.getStatus().conditions()).anySatisfy(cond -> {
                assertThat(cond.getType()).isEqualTo("Available");
                assertThat(cond.getStatus()).isEqualTo("True");
            });
        });
    }

    @Test
    void everyManagedNodeIsPlannedAndItsProfileGoesWithTheNode() {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            for (String node : RealCluster.MANAGED) {
                NodePowerProfile npp = cluster.admin.resources(NodePowerProfile.class).withName(JoulieApi.nodePowerProfileName(node)).get();
                assertThat(npp).as("NodePowerProfile of " + node).isNotNull();
                assertThat(npp.getMetadata().getOwnerReferences()).anySatisfy(o -> {
                    assertThat(o.getKind()).isEqualTo("Node");
                    assertThat(o.getName()).isEqualTo(node);
                });
                Node n = cluster.admin.nodes().withName(node).get();
                assertThat(n.getMetadata().getLabels()).containsKey(JoulieApi.POWER_PROFILE_LABEL);
            }
            assertThat(cluster.admin.resources(NodePowerProfile.class).withName(JoulieApi.nodePowerProfileName(RealCluster.UNMANAGED)).get())
                    .as("no profile for a node Joulie does not manage").isNull();
        });

        // a node that comes and goes: planned while it is there, its profile collected by the real garbage collector
        String transient_ = "kwok-transient";
        cluster.kwokNodes(List.of(transient_), Map.of("joulie.io/managed", "true"));
        String name = JoulieApi.nodePowerProfileName(transient_);
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> cluster.admin.resources(NodePowerProfile.class).withName(name).get() != null);
        cluster.admin.nodes().withName(transient_).delete();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> cluster.admin.resources(NodePowerProfile.class).withName(name).get() == null);
    }
}
