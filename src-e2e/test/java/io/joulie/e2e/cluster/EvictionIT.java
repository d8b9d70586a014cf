package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.joulie.api.v1alpha1.JoulieApi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Scenario 5, evict escalation for real: with a PodDisruptionBudget whose status the real disruption controller
 * computes, the Eviction API refuses the protected Pod (429) and the operator tries again at later ticks while
 * the node keeps draining; an unprotected Pod is evicted and its node commits eco.
 */
@Order(5)
class EvictionIT extends ClusterScenario {
    static final String NS = "e2e-eviction";

    @BeforeAll
    static void start() throws Exception {
        cluster.namespace(NS);
    }

    @AfterAll
    static void cleanUp() {
        removeNamespaceAndPolicy(NS);
    }

    static Pod performancePod(String name, String node, Map<String, String> labels) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace(NS).withLabels(labels).endMetadata()
                .withNewSpec().addNewContainer().withName("work").withImage("registry.invalid/work:1").endContainer()
                .withNodeSelector(Map.of(JoulieApi.POWER_PROFILE_LABEL, "performance", "kubernetes.io/hostname", node))
                .withTerminationGracePeriodSeconds(0L).endSpec().build();
    }

    @Test
    void aProtectedPodIsRefusedAndRetriedAnUnprotectedOneIsEvictedAndItsNodeGoesEco() {
        String protectedNode = RealCluster.MANAGED.get(0);
        String freeNode = RealCluster.MANAGED.get(1);
        cluster.policy("{\"type\":\"static_partition\",\"staticHpFrac\":1.0,\"downgradeEscalation\":\"evict\",\"downgradeTimeout\":\"3s\"}");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).until(() ->
                "ActivePerformance".equals(cluster.states().get(protectedNode)) && "ActivePerformance".equals(cluster.states().get(freeNode)));

        cluster.admin.resource(performancePod("guarded", protectedNode, Map.of("app", "guarded"))).create();
        cluster.admin.resource(performancePod("loose", freeNode, Map.of("app", "loose"))).create();
        PodDisruptionBudget pdb = new PodDisruptionBudgetBuilder().withNewMetadata().withName("guarded").withNamespace(NS).endMetadata()
                .withNewSpec().withMinAvailable(new IntOrString(1)).withNewSelector().addToMatchLabels("app", "guarded").endSelector()
                .endSpec().build();
        cluster.admin.resource(pdb).create();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            assertThat(cluster.admin.pods().inNamespace(NS).list().getItems())
                    .allSatisfy(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Running"));
            PodDisruptionBudget computed = cluster.admin.resource(pdb).get();
            assertThat(computed.getStatus().getCurrentHealthy()).as("PDB status from the disruption controller").isEqualTo(1);
            assertThat(computed.getStatus().getDisruptionsAllowed()).isZero();
        });

        // every node planned eco; both nodes drain, the timeout passes, the operator evicts
        cluster.policy("{\"staticHpFrac\":0.0}");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            assertThat(cluster.admin.pods().inNamespace(NS).withName("loose").get()).as("the unprotected Pod, evicted").isNull();
            assertThat(cluster.states()).containsEntry(freeNode, "ActiveEco");
        });
        // the protected Pod stays, its node keeps the performance cap, and the refusals are retried at later ticks
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                assertThat(refusedEvictions()).as("evictions of ns/guarded refused with 429").hasSizeGreaterThanOrEqualTo(2));
        assertThat(cluster.admin.pods().inNamespace(NS).withName("guarded").get()).isNotNull();
        assertThat(cluster.states()).containsEntry(protectedNode, "DrainingPerformance");
    }

    static List<AuditLog.Entry> refusedEvictions() {
        return AuditLog.read(cluster.controlPlane.auditLog()).stream()
                .filter(e -> e.user().equals(AuditLog.serviceAccount(RealCluster.NAMESPACE, RealCluster.OPERATOR_SA)))
                .filter(e -> "eviction".equals(e.subresource()) && "guarded".equals(e.name()) && e.code() == 429)
                .toList();
    }
}
