package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodeHardware;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.testkit.FakeHost;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Scenario 14, what we ship on a real node: both images, built by {@code ./mvnw package} and imported into the
 * node's containerd under the names the manifests give them, installed with the README's command on a control plane
 * of their own whose one node is a real kubelet ({@link RealNode}). The kubelet runs the operator's probes and the
 * agent's security context, hostPath volumes, memory limit and termination; the agent finds its "hardware" (a
 * {@link FakeHost}: two RAPL packages of 400 W at most, 200 W found) where a server has it.
 */
@Order(14)
@ExtendWith({RealCluster.Extension.class, RealNodeIT.Condition.class})
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealNodeIT {
    static final String NODE = RealNode.NAME;
    static final String NS = RealCluster.NAMESPACE;
    static final double PACKAGE_MAX_WATTS = 400;
    static RealCluster cluster;
    static RealNode node;
    static FakeHost host;

    /** {@code -De2e.realnode=skip} skips these scenarios explicitly (reported as skipped, with the reason). */
    static final class Condition implements org.junit.jupiter.api.extension.ExecutionCondition {
        @Override
        public org.junit.jupiter.api.extension.ConditionEvaluationResult evaluateExecutionCondition(
                org.junit.jupiter.api.extension.ExtensionContext context) {
            return "skip".equals(System.getProperty("e2e.realnode"))
                    ? org.junit.jupiter.api.extension.ConditionEvaluationResult.disabled("real-node scenarios skipped by -De2e.realnode=skip")
                    : org.junit.jupiter.api.extension.ConditionEvaluationResult.enabled("the real node is on");
        }
    }

    @BeforeAll
    static void start() throws Exception {
        cluster = RealCluster.start(RealCluster.REPO.resolve("src-e2e/target/control-plane-real-node"));
        host = FakeHost.intelNode(cluster.controlPlane.workDir().resolve("host-" + NODE), 2, (long) PACKAGE_MAX_WATTS);
        node = RealNode.start(cluster.controlPlane, host, Images.archives());
        // the cluster's side of this node's networking, in force before the first Pod of the namespace
        cluster.kubectl(null, "create", "namespace", NS).ok();
        cluster.kubectl(RealNode.networkShim(NS, cluster.controlPlane), "apply", "-f", "-").ok();
        RealNode.awaitShim(cluster, NS);
        cluster.install().ok();
        // the one documented step of an admin's beyond the install: hand the node to Joulie
        cluster.kubectl(null, "label", "node", NODE, "joulie.io/managed=true").ok();
        cluster.policy("{\"reconcileInterval\":\"5s\",\"type\":\"static_partition\",\"staticHpFrac\":0.0}");
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    static Optional<Pod> pod(String app) {
        return cluster.admin.pods().inNamespace(NS).withLabel("app.kubernetes.io/name", app).list().getItems().stream()
                .filter(p -> NODE.equals(p.getSpec().getNodeName()) && p.getMetadata().getDeletionTimestamp() == null).findFirst();
    }

    static boolean ready(Pod p) {
        return p.getStatus() != null && p.getStatus().getConditions() != null && p.getStatus().getConditions().stream()
                .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
    }

    static Pod awaitReady(String app) {
        await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(pod(app).filter(RealNodeIT::ready)).as(app + " Pod Ready on " + NODE + "; "
                        + cluster.kubectl(null, "get", "pods", "-n", NS, "-o", "wide").output()).isPresent());
        return pod(app).orElseThrow();
    }

    static ContainerStatus container(Pod p) {
        return p.getStatus().getContainerStatuses().getFirst();
    }

    static void awaitLimits(long microwatts, String why) {
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            for (int pkg = 0; pkg < host.packages(); pkg++) {
                assertThat(host.limit(pkg)).as("package %d: %s", pkg, why).isEqualTo(Long.toString(microwatts));
            }
        });
    }

    static long eco() {
        return Long.parseLong(host.expectedLimit(0, 2 * PACKAGE_MAX_WATTS * 60 / 100));
    }

    @Test
    @Order(1)
    void theOperatorStartsFromItsImageAndPassesItsProbes() {
        Pod operator = awaitReady("joulie-operator");
        ContainerStatus c = container(operator);
        assertThat(c.getImage()).contains("quay.io/joulie/joulie-operator:");
        assertThat(c.getRestartCount()).as("restarts of the operator container").isZero();
        assertThat(c.getStarted()).as("startup probe passed").isTrue();
        Instant started = Instant.parse(c.getState().getRunning().getStartedAt());
        Instant ready = Instant.parse(operator.getStatus().getConditions().stream().filter(x -> x.getType().equals("Ready"))
                .map(PodCondition::getLastTransitionTime).findFirst().orElseThrow());
        System.out.printf("real node: operator container start to Ready %d s (the kubelet's clock, 1 s resolution)%n",
                Duration.between(started, ready).toSeconds());
    }

    @Test
    @Order(2)
    void theAgentFromItsImageCapsTheHardwareAndPublishesIt() {
        Pod agent = awaitReady("joulie-agent");
        assertThat(container(agent).getImage()).contains("quay.io/joulie/joulie-agent:");
        Instant started = Instant.parse(container(agent).getState().getRunning().getStartedAt());
        awaitLimits(Long.parseLong(host.expectedLimit(0, 2 * PACKAGE_MAX_WATTS * 60 / 100)), "eco (60 %) as planned");
        System.out.printf("real node: agent container start to its first eco cap within %d s%n",
                Duration.between(started, Instant.now()).toSeconds());
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            NodeHardware nhw = cluster.admin.resources(NodeHardware.class).withName(JoulieApi.nodePowerProfileName(NODE)).get();
            assertThat(nhw).as("NodeHardware of " + NODE).isNotNull();
            assertThat(nhw.getStatus().cpu().packages()).extracting(NodeHardwareStatus.CpuPackage::maxWatts)
                    .containsExactly(PACKAGE_MAX_WATTS, PACKAGE_MAX_WATTS);
        });
        cluster.policy("{\"staticHpFrac\":1.0}");
        awaitLimits(Long.parseLong(host.expectedLimit(0, 2 * PACKAGE_MAX_WATTS)), "performance (100 %) as planned");
        cluster.policy("{\"staticHpFrac\":0.0}");
        awaitLimits(eco(), "eco again");
    }

    @Test
    @Order(4)
    void anAgentStoppedThroughTheRuntimePutsBackWhatItFound() {
        awaitReady("joulie-agent");
        awaitLimits(eco(), "eco");
        assertThat(node.agentStateDir().resolve("originals.json")).as("originals kept on the host").exists();
        // the node leaves Joulie: the DaemonSet controller deletes the agent Pod, the runtime sends SIGTERM
        cluster.kubectl(null, "label", "node", NODE, "joulie.io/managed-").ok();
        awaitLimits(FakeHost.ORIGINAL_LIMIT_UW, "back at the limit the agent found");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(pod("joulie-agent")).isEmpty());
        assertThat(node.agentStateDir().resolve("originals.json")).as("kept originals removed after the restore").doesNotExist();
        cluster.kubectl(null, "label", "node", NODE, "joulie.io/managed=true").ok();
        awaitReady("joulie-agent");
        awaitLimits(eco(), "eco again after the node came back");
    }

    @Test
    @Order(5)
    void anAgentKilledWithSigkillLeavesItsOriginalsToTheNextContainer() throws Exception {
        Pod agent = awaitReady("joulie-agent");
        awaitLimits(eco(), "eco");
        long pid = node.containerPid(agent).orElseThrow();
        new ProcessBuilder("kill", "-KILL", Long.toString(pid)).inheritIO().start().waitFor();
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            Pod p = pod("joulie-agent").orElseThrow();
            assertThat(container(p).getRestartCount()).as("restarts after SIGKILL").isEqualTo(1);
            assertThat(container(p).getLastState().getTerminated().getExitCode()).isEqualTo(137);
            assertThat(ready(p)).isTrue();
        });
        assertThat(host.limit(0)).as("the eco cap the crash left").isEqualTo(Long.toString(eco()));
        String log = cluster.kubectl(null, "logs", "-n", NS, pod("joulie-agent").orElseThrow().getMetadata().getName()).ok().output();
        assertThat(log).contains("Using the originals an earlier agent process of this boot kept in /var/lib/joulie/originals.json");
        cluster.kubectl(null, "label", "node", NODE, "joulie.io/managed-").ok();
        awaitLimits(FakeHost.ORIGINAL_LIMIT_UW, "back at the limit the first agent found, not the crash's eco cap");
        cluster.kubectl(null, "label", "node", NODE, "joulie.io/managed=true").ok();
        awaitReady("joulie-agent");
    }
}
