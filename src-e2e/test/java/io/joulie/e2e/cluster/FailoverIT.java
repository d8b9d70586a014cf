package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.harness.JavaApp;
import io.joulie.testkit.PrometheusText;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Scenario 6, leader failover: two operator processes; the Lease holder is killed with SIGKILL (no release);
 * the other takes the Lease within the lease duration and carries on from the state in the cluster: no node
 * changes its label or its NodePowerProfile because of the failover.
 */
@Order(6)
class FailoverIT extends ClusterScenario {

    static Lease lease() {
        List<Lease> leases = cluster.admin.leases().inNamespace(RealCluster.NAMESPACE).list().getItems().stream()
                .filter(l -> l.getSpec().getHolderIdentity() != null && l.getSpec().getHolderIdentity().startsWith("joulie-operator-"))
                .toList();
        assertThat(leases).as("the operator's Lease in " + RealCluster.NAMESPACE).hasSize(1);
        return leases.getFirst();
    }

    @Test
    void theStandbyTakesOverWithinTheLeaseDurationAndNothingMoves() throws Exception {
        cluster.policy("{\"type\":\"static_partition\",\"staticHpFrac\":0.5}");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            assertThat(cluster.states()).hasSize(RealCluster.MANAGED.size());
            assertThat(cluster.states().values().stream().filter("ActivePerformance"::equals).count()).isEqualTo(3);
        });
        JavaApp standby = cluster.startOperator("joulie-operator-standby", Map.of());
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                .until(() -> "UP".equals(readiness(standby)));
        Lease before = lease();
        String leader = before.getSpec().getHolderIdentity();
        JavaApp leading = cluster.operators().stream().filter(p -> leader.startsWith(p.name() + "-")).findFirst().orElseThrow();
        JavaApp other = leading == standby ? cluster.operators().stream().filter(p -> p != standby).findFirst().orElseThrow() : standby;
        int duration = before.getSpec().getLeaseDurationSeconds();

        List<String> changes = new CopyOnWriteArrayList<>();
        SharedIndexInformer<Node> nodes = cluster.admin.nodes().withLabel("joulie.io/managed", "true").inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node n) {
            }

            @Override
            public void onUpdate(Node old, Node n) {
                String was = old.getMetadata().getLabels().get(JoulieApi.POWER_PROFILE_LABEL);
                String is = n.getMetadata().getLabels().get(JoulieApi.POWER_PROFILE_LABEL);
                if (!java.util.Objects.equals(was, is)) {
                    changes.add(n.getMetadata().getName() + " label " + was + " -> " + is);
                }
            }

            @Override
            public void onDelete(Node n, boolean unknown) {
                changes.add(n.getMetadata().getName() + " deleted");
            }
        });
        SharedIndexInformer<NodePowerProfile> profiles = cluster.admin.resources(NodePowerProfile.class).inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(NodePowerProfile p) {
            }

            @Override
            public void onUpdate(NodePowerProfile old, NodePowerProfile p) {
                if (!old.getSpec().equals(p.getSpec()) || !java.util.Objects.equals(state(old), state(p))) {
                    changes.add(p.getMetadata().getName() + " " + old.getSpec().profile() + "/" + state(old) + " -> "
                            + p.getSpec().profile() + "/" + state(p));
                }
            }

            @Override
            public void onDelete(NodePowerProfile p, boolean unknown) {
                changes.add(p.getMetadata().getName() + " deleted");
            }
        });
        try {
            long killed = System.nanoTime();
            leading.kill();
            await().atMost(Duration.ofSeconds(duration + 15L)).pollInterval(Duration.ofMillis(200))
                    .until(() -> lease().getSpec().getHolderIdentity().startsWith(other.name() + "-"));
            double tookSeconds = (System.nanoTime() - killed) / 1e9;
            System.out.printf("Lease taken over by %s %.1f s after SIGKILL of %s (lease duration %d s)%n", other.name(), tookSeconds,
                    leader, duration);
            assertThat(tookSeconds).as("takeover time").isLessThanOrEqualTo(duration + 5.0);
            // the new leader plans a few ticks (2 s each) from the state in the cluster
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        String metrics = other.get("/q/metrics");
                        return metrics != null && PrometheusText.sum(metrics, "joulie_leader") == 1.0;
                    });
            Thread.sleep(6_000);
            assertThat(changes).as("label or profile changes caused by the failover").isEmpty();
        } finally {
            nodes.close();
            profiles.close();
        }
    }

    static String state(NodePowerProfile p) {
        return p.getStatus() == null || p.getStatus().state() == null ? null : p.getStatus().state().name();
    }

    static String readiness(JavaApp p) {
        String body = p.get("/q/health/ready");
        return body != null && body.contains("\"UP\"") ? "UP" : "DOWN";
    }
}
