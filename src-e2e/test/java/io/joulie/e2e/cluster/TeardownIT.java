package io.joulie.e2e.cluster;

import io.joulie.harness.JavaApp;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Last: least privilege over the whole suite (no request of the operator or the agents was refused: every one ran
 * with exactly the RBAC of {@code kubernetes/} and under the agents' admission policy), then removal: with the operator stopped, deleting {@code joulie}
 * removes what it created through the real garbage collector alone.
 */
@Order(100)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TeardownIT extends ClusterScenario {

    @Test
    @Order(1)
    void noRequestOfTheOperatorOrTheAgentWasForbidden() {
        List<String> users = List.of(AuditLog.serviceAccount(RealCluster.NAMESPACE, RealCluster.OPERATOR_SA),
                AuditLog.serviceAccount(RealCluster.NAMESPACE, RealCluster.AGENT_SA),
                AuditLog.serviceAccount(RealCluster.NAMESPACE, RealCluster.POOL_AGENT_SA));
        // AgentPermissionsIT's deliberate intrusions are refused (by the admission policy); nothing else may be
        List<AuditLog.Entry> all = AuditLog.read(cluster.controlPlane.auditLog()).stream()
                .filter(e -> !e.userAgent().equals(AgentPermissionsIT.INTRUDER)).toList();
        assertThat(all).as("requests by the operator's ServiceAccount").anyMatch(e -> e.user().equals(users.get(0)));
        assertThat(all).as("requests by the agent's ServiceAccount").anyMatch(e -> e.user().equals(users.get(1)));
        assertThat(all).as("requests by the pool agent's ServiceAccount").anyMatch(e -> e.user().equals(users.get(2)));
        assertThat(all.stream().filter(e -> users.contains(e.user()) && (e.code() == 403 || e.code() == 422) && !e.failedTest()
                && !e.crdTerminating())
                .toList()).as("requests refused by RBAC or admission").isEmpty();
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
                    .noneMatch(s -> s.getMetadata().getName().startsWith("joulie-agent") || s.getMetadata().getName().equals("joulie-operator-metrics")
                            || s.getMetadata().getName().equals("joulie-operator-webhook"));
            assertThat(cluster.admin.admissionRegistration().v1().mutatingWebhookConfigurations().withName("joulie-pod-placement").get())
                    .isNull();
            assertThat(cluster.admin.pods().inNamespace(RealCluster.NAMESPACE).withLabel("app.kubernetes.io/name", "joulie-agent").list().getItems())
                    .isEmpty();
        });
    }

    /**
     * Scenario 7, second half: the digital twin's cluster mode against this control plane through
     * {@code --kubeconfig} (its real-cluster path): the packaged operator and agent (pool mode) drive the twin's
     * nodes, every job completes without a contract violation, and the twin removes its nodes afterwards.
     */
    @Test
    @Order(3)
    void theTwinsClusterModeRunsAgainstThisControlPlane() throws Exception {
        cluster.kubectl(null, "delete", "nodes", "-l", "joulie.io/managed=true", "--wait=true").ok();
        Path out = cluster.controlPlane.workDir().resolve("twin");
        ProcessBuilder pb = new ProcessBuilder(JavaApp.JAVA.toString(), "--sun-misc-unsafe-memory-access=allow", "-jar",
                cluster.repo().resolve("src-sim/target/joulie-sim.jar").toString(), "demo",
                "--kubeconfig", cluster.controlPlane.adminKubeconfig().toString(), "--repo", cluster.repo().toString(),
                "--out", out.toString(), "cluster.nodes=3", "workload.jobs=24", "workload.workMax=900", "planner.queueHpMin=1",
                "planner.queueHpMax=3", "planner.queuePerfPerHpNode=3").redirectErrorStream(true);
        Process twin = pb.start();
        String output = new String(twin.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(twin.waitFor(5, TimeUnit.MINUTES)).isTrue();
        assertThat(twin.exitValue()).as("the twin's demo against the real control plane:\n" + output).isZero();
        assertThat(output).contains("the API server of " + cluster.controlPlane.adminKubeconfig(), "24/24 jobs", "violations 0 s");
        assertThat(cluster.admin.nodes().list().getItems()).extracting(n -> n.getMetadata().getName())
                .as("the twin removes the nodes it made").noneMatch(n -> n.startsWith("node-"));
    }
}
