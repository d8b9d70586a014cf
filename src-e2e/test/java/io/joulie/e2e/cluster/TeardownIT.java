package io.joulie.e2e.cluster;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Last: least privilege over the whole suite (no request of the operator or the agent was refused: every one ran
 * with exactly the RBAC of {@code kubernetes/}), then removal: with the operator stopped, deleting {@code joulie}
 * removes what it created through the real garbage collector alone.
 */
@Order(100)
@ExtendWith(RealCluster.Extension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TeardownIT {
    static RealCluster cluster;

    @BeforeAll
    static void start(RealCluster c) throws Exception {
        cluster = c;
        cluster.running();
    }

    @Test
    @Order(1)
    void noRequestOfTheOperatorOrTheAgentWasForbidden() {
        List<String> users = List.of(AuditLog.serviceAccount(RealCluster.NAMESPACE, RealCluster.OPERATOR_SA),
                AuditLog.serviceAccount(RealCluster.NAMESPACE, RealCluster.AGENT_SA));
        List<AuditLog.Entry> all = AuditLog.read(cluster.controlPlane.auditLog());
        assertThat(all).as("requests by the operator's ServiceAccount").anyMatch(e -> e.user().equals(users.get(0)));
        assertThat(all).as("requests by the agent's ServiceAccount").anyMatch(e -> e.user().equals(users.get(1)));
        assertThat(all.stream().filter(e -> users.contains(e.user()) && e.code() == 403).toList())
                .as("requests refused by RBAC").isEmpty();
        assertThat(cluster.processLogLines().stream().filter(l -> l.contains("Forbidden") || l.contains(" 403 ")
                || l.contains("code=403")).toList()).as("403 in the operator and agent logs").isEmpty();
    }

    @Test
    @Order(2)
    void deletingJoulieRemovesItsOperandsThroughTheGarbageCollector() {
        cluster.stopOperators();
        cluster.kubectl(null, "delete", "joulie", "joulie", "--wait=false").ok();
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            assertThat(cluster.admin.apps().daemonSets().inNamespace(RealCluster.NAMESPACE).withName("joulie-agent").get()).isNull();
            assertThat(cluster.admin.services().inNamespace(RealCluster.NAMESPACE).list().getItems())
                    .noneMatch(s -> s.getMetadata().getName().startsWith("joulie-agent") || s.getMetadata().getName().equals("joulie-operator-metrics"));
            assertThat(cluster.admin.pods().inNamespace(RealCluster.NAMESPACE).withLabel("app.kubernetes.io/name", "joulie-agent").list().getItems())
                    .isEmpty();
        });
    }
}
