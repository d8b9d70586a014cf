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

    /** The app's Pod on the node, or an AssertionError (which an await retries) while there is none. */
    static Pod current(String app) {
        return pod(app).orElseThrow(() -> new AssertionError("no " + app + " Pod on " + NODE + " now"));
    }

    static boolean ready(Pod p) {
        return p.getStatus() != null && p.getStatus().getConditions() != null && p.getStatus().getConditions().stream()
                .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
    }

    static Pod awaitReady(String app) {
        await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(pod(app).filter(RealNodeIT::ready)).as(app + " Pod Ready on " + NODE + "; "
                        + cluster.kubectl(null, "get", "pods", "-n", NS, "-o", "wide").output()).isPresent());
        return current(app);
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
            Pod p = current("joulie-agent");
            assertThat(container(p).getRestartCount()).as("restarts after SIGKILL").isEqualTo(1);
            assertThat(container(p).getLastState().getTerminated().getExitCode()).isEqualTo(137);
            assertThat(ready(p)).isTrue();
        });
        assertThat(host.limit(0)).as("the eco cap the crash left").isEqualTo(Long.toString(eco()));
        String log = cluster.kubectl(null, "logs", "-n", NS, current("joulie-agent").getMetadata().getName()).ok().output();
        assertThat(log).contains("Using the originals an earlier agent process of this boot kept in /var/lib/joulie/originals.json");
        cluster.kubectl(null, "label", "node", NODE, "joulie.io/managed-").ok();
        awaitLimits(FakeHost.ORIGINAL_LIMIT_UW, "back at the limit the first agent found, not the crash's eco cap");
        cluster.kubectl(null, "label", "node", NODE, "joulie.io/managed=true").ok();
        awaitReady("joulie-agent");
    }

    @Test
    @Order(6)
    void aRollingUpdateOfTheAgentHandsTheNodeOverWithinItsRangeAndKeepsTheOriginals() throws Exception {
        Pod before = awaitReady("joulie-agent");
        awaitLimits(eco(), "eco");
        // every value the packages hold during the handover, sampled every 20 ms
        java.util.Set<String> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.concurrent.atomic.AtomicBoolean sampling = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread sampler = Thread.ofPlatform().daemon().start(() -> {
            while (sampling.get()) {
                for (int pkg = 0; pkg < host.packages(); pkg++) {
                    seen.add(host.limit(pkg).strip());
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        try {
            // a new agent setting: the DaemonSet's template changes and its controller replaces the Pod
            cluster.kubectl(null, "patch", "joulie", "joulie", "--type=merge", "-p", "{\"spec\":{\"agent\":{\"reconcileInterval\":\"10s\"}}}")
                    .ok();
            await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                Pod after = current("joulie-agent");
                assertThat(after.getMetadata().getUid()).isNotEqualTo(before.getMetadata().getUid());
                assertThat(after.getSpec().getContainers().getFirst().getEnv())
                        .anySatisfy(e -> assertThat(e.getName() + "=" + e.getValue()).isEqualTo("AGENT_RECONCILE_INTERVAL=10s"));
                assertThat(ready(after)).isTrue();
            });
            awaitLimits(eco(), "eco under the new agent");
        } finally {
            sampling.set(false);
            sampler.join();
        }
        System.out.println("real node: limits seen during the rolling update (µW): " + new java.util.TreeSet<>(seen));
        assertThat(seen).as("every limit the packages held during the handover: the one found or the planned one")
                .isSubsetOf(Long.toString(FakeHost.ORIGINAL_LIMIT_UW), Long.toString(eco()));
        // the originals survived the handover: leaving puts back what was found before Joulie's first write
        cluster.kubectl(null, "label", "node", NODE, "joulie.io/managed-").ok();
        awaitLimits(FakeHost.ORIGINAL_LIMIT_UW, "back at the limit found before the first agent");
        cluster.kubectl(null, "label", "node", NODE, "joulie.io/managed=true").ok();
        awaitReady("joulie-agent");
        awaitLimits(eco(), "eco again");
    }

    @Test
    @Order(7)
    void podSecurityBaselineRefusesTheAgentAndTheJoulieStatusSaysWhy() {
        awaitReady("joulie-agent");
        cluster.kubectl(null, "label", "namespace", NS, "pod-security.kubernetes.io/enforce=baseline", "--overwrite").ok();
        try {
            cluster.kubectl(null, "delete", "pod", "-n", NS, current("joulie-agent").getMetadata().getName()).ok();
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                var available = cluster.admin.resources(io.joulie.api.v1alpha1.Joulie.class).withName("joulie").get().getStatus()
                        .conditions().stream().filter(c -> c.getType().equals("Available")).findFirst().orElseThrow(() -> new AssertionError("no Available condition yet"));
                assertThat(available.getReason()).isEqualTo("AgentPodsRefused");
                assertThat(available.getMessage()).contains("violates PodSecurity", "baseline");
            });
            assertThat(pod("joulie-agent")).as("no agent Pod admitted").isEmpty();
            awaitLimits(FakeHost.ORIGINAL_LIMIT_UW, "the deleted agent put back what it found");
        } finally {
            cluster.kubectl(null, "label", "namespace", NS, "pod-security.kubernetes.io/enforce=privileged", "--overwrite").ok();
        }
        awaitReady("joulie-agent");
        awaitLimits(eco(), "eco again once admitted");
    }

    @Test
    @Order(8)
    void anOperatorThatStopsAnsweringIsRestartedByItsLivenessProbe() throws Exception {
        Pod operator = awaitReady("joulie-operator");
        long pid = node.containerPid(operator).orElseThrow(() -> new AssertionError("no process of the operator's container"));
        // frozen (SIGSTOP): its probes get no answer; the kubelet kills it after the liveness probe's failures
        new ProcessBuilder("kill", "-STOP", Long.toString(pid)).inheritIO().start().waitFor();
        Instant frozen = Instant.now();
        await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
            Pod p = current("joulie-operator");
            assertThat(container(p).getRestartCount()).as("operator restarts").isEqualTo(1);
            assertThat(ready(p)).isTrue();
        });
        String events = cluster.kubectl(null, "get", "events", "-n", NS, "--field-selector",
                "involvedObject.name=" + operator.getMetadata().getName()).ok().output();
        assertThat(events).contains("Liveness probe failed").contains("will be restarted");
        System.out.printf("real node: frozen operator restarted and Ready again %d s later%n",
                Duration.between(frozen, Instant.now()).toSeconds());
    }

    @Test
    @Order(9)
    void bothPodsRunThroughPlanChurnAtTheirMemoryLimits() throws Exception {
        Pod operator = awaitReady("joulie-operator");
        Pod agent = awaitReady("joulie-agent");
        int operatorRestarts = container(operator).getRestartCount();
        long seconds = Long.getLong("e2e.realnode.churn.seconds", 60);
        Instant end = Instant.now().plusSeconds(seconds);
        int flips = 0;
        while (Instant.now().isBefore(end)) {
            cluster.policy("{\"staticHpFrac\":" + (flips++ % 2 == 0 ? "1.0" : "0.0") + "}");
            Thread.sleep(3000);
        }
        cluster.policy("{\"staticHpFrac\":0.0}");
        awaitLimits(eco(), "the last plan applied after the churn");
        for (Pod p : List.of(current("joulie-operator"), current("joulie-agent"))) {
            ContainerStatus c = container(p);
            String name = p.getMetadata().getLabels().get("app.kubernetes.io/name");
            assertThat(c.getRestartCount()).as(name + " restarts during the churn")
                    .isEqualTo(name.equals("joulie-operator") ? operatorRestarts : 0);
            assertThat(c.getLastState() == null || c.getLastState().getTerminated() == null
                    || name.equals("joulie-operator") && operatorRestarts > 0).as(name + " lastState " + c.getLastState()).isTrue();
            String limit = p.getSpec().getContainers().getFirst().getResources().getLimits().get("memory").toString();
            PodMemory m = PodMemory.of(p);
            System.out.printf("real node: %s over %d s of churn (%d plan changes) at its %s limit: peak %d MiB (cgroup "
                    + "memory.max_usage_in_bytes, page cache included), rss %d MiB, OOM kills %d%n", name, seconds, flips, limit,
                    m.peakBytes() >> 20, m.rssBytes() >> 20, m.oomKills());
            assertThat(m.oomKills()).as(name + " OOM kills in its cgroup").isZero();
        }
        assertThat(agent.getMetadata().getUid()).isEqualTo(current("joulie-agent").getMetadata().getUid());
    }

    /** A Pod's memory as the kubelet's cgroup (v1) counts it. */
    record PodMemory(long peakBytes, long rssBytes, long oomKills) {
        static PodMemory of(Pod p) throws IOException {
            Path root = Path.of("/sys/fs/cgroup/memory/kubepods");
            String name = "pod" + p.getMetadata().getUid();
            Path dir;
            try (var walk = Files.walk(root, 3)) {
                dir = walk.filter(d -> d.getFileName().toString().equals(name)).findFirst()
                        .orElseThrow(() -> new AssertionError("no memory cgroup " + name + " under " + root));
            }
            long peak = Long.parseLong(Files.readString(dir.resolve("memory.max_usage_in_bytes")).strip());
            long rss = stat(dir.resolve("memory.stat"), "total_rss");
            long kills = stat(dir.resolve("memory.oom_control"), "oom_kill");
            return new PodMemory(peak, rss, kills);
        }

        static long stat(Path file, String key) throws IOException {
            return Files.readAllLines(file).stream().map(l -> l.split(" ")).filter(f -> f[0].equals(key))
                    .mapToLong(f -> Long.parseLong(f[1])).findFirst().orElse(0);
        }
    }
}
