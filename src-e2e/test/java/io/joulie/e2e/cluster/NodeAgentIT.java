package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.joulie.api.v1alpha1.CapConfirmation;
import io.joulie.api.v1alpha1.ControlResult;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodeHardware;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.GpuPower;
import io.joulie.api.v1alpha1.NodePowerProfileStatus;
import io.joulie.harness.JavaApp;
import io.joulie.testkit.FakeHost;
import io.joulie.testkit.FakeNvml;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Scenario 7, node mode: the packaged agent as the DaemonSet runs it on one node (NODE_NAME), with a token of the
 * agent's ServiceAccount bound to a Pod on that node (as the DaemonSet's Pod has it: the admission policy lets it write
 * only what belongs to its node), a fake sysfs tree for its host and the fake NVML with two GPU boards. It labels its
 * Node with what the host can do (the {@code nodes patch} rule), publishes the node's NodeHardware (the operator then
 * writes GPU caps for it), answers in the node's NodePowerProfile (powercap, nvml), writes the planned
 * percents as the watts they mean into the RAPL limit files and the boards' limits, and follows a change of plan; on
 * SIGKILL the caps and the originals kept in its state directory stay, and the next agent process, on SIGTERM, puts
 * back the limits the first one found, on the packages and on the boards, and removes the kept originals.
 */
@Order(9)
class NodeAgentIT extends ClusterScenario {
    static final String NODE = RealCluster.MANAGED.getFirst();
    /** What an admin had set the boards to before Joulie: what must come back. */
    static final long BOARD_LIMIT_FOUND_MW = 650_000;
    static FakeHost host;
    static FakeNvml nvml;
    static JavaApp agent;
    static Map<String, String> environment;

    @BeforeAll
    static void start() throws Exception {
        // 400 W a package at most: 100 % is 400 W a package, 60 % 240 W
        host = FakeHost.intelNode(cluster.controlPlane.workDir().resolve("host-" + NODE), 2, 400);
        nvml = FakeNvml.install(host.root().resolve("nvml"), List.of(FakeNvml.Board.h100().withLimitMw(BOARD_LIMIT_FOUND_MW),
                FakeNvml.Board.h100().withLimitMw(BOARD_LIMIT_FOUND_MW)));
        environment = new HashMap<>(host.agentEnvironment());
        environment.putAll(nvml.agentEnvironment());
        environment.put("AGENT_RECONCILE_INTERVAL", "1s");
        agent = cluster.startNodeAgent("agent-" + NODE, NODE, environment);
    }

    @AfterAll
    static void stop() {
        if (agent != null) {
            agent.close();
        }
        if (cluster != null) {
            cluster.policy("null");
        }
        removeAgentReports();
    }

    void awaitLimitsFollowThePlan(double percent) {
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            assertThat(PoolAgentIT.plannedPercent(NODE)).as("planned CPU percent of " + NODE).isEqualTo(percent);
            assertThat(PoolAgentIT.profile(NODE).getSpec().gpu()).as("GPU cap of " + NODE + ", a GPU node by its NodeHardware")
                    .isEqualTo(GpuPower.percent(percent));
            for (int pkg = 0; pkg < host.packages(); pkg++) {
                assertThat(host.limit(pkg)).as("limit of package " + pkg).isEqualTo(host.expectedLimit(pkg, 2 * 400 * percent / 100));
            }
            for (int board = 0; board < 2; board++) {
                assertThat(nvml.limitMw(board)).as("limit of GPU " + board).isEqualTo(Math.round(700_000 * percent / 100));
            }
            NodePowerProfile npp = PoolAgentIT.profile(NODE);
            assertThat(npp.getStatus()).as("status of the NodePowerProfile of " + NODE).isNotNull();
            NodePowerProfileStatus.Applied applied = npp.getStatus().applied();
            assertThat(applied).as("the agent's answer").isNotNull();
            assertThat(applied.generation()).as("answered the generation in force").isEqualTo(npp.getMetadata().getGeneration());
            assertThat(applied.cpu()).as("its CPU answer").isNotNull();
            assertThat(applied.cpu().result()).isEqualTo(ControlResult.APPLIED);
            assertThat(applied.cpu().backend()).isEqualTo("powercap");
            // an NPE here would end the wait (awaitility retries assertion errors only): the GPU answer may lag the CPU's
            assertThat(applied.gpu()).as("its GPU answer").isNotNull();
            assertThat(applied.gpu().result()).isEqualTo(ControlResult.APPLIED);
            assertThat(applied.gpu().backend()).isEqualTo("nvml");
            assertThat(applied.gpu().boards()).extracting(NodePowerProfileStatus.Device::watts)
                    .containsExactly(700 * percent / 100, 700 * percent / 100);
        });
    }

    @Test
    void theAgentLabelsItsNodeCapsItsHardwareFollowsThePlanAndItsSuccessorAfterACrashRestoresOnSigterm() throws Exception {
        cluster.policy("{\"type\":\"static_partition\",\"staticHpFrac\":1.0}");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            Node node = cluster.admin.nodes().withName(NODE).get();
            assertThat(node.getMetadata().getLabels()).as("capability labels the agent put on " + NODE)
                    .containsEntry(JoulieApi.FEATURE_RAPL_WRITABLE, "true");
            assertThat(cluster.states()).containsEntry(NODE, "ActivePerformance");
        });
        awaitLimitsFollowThePlan(100);
        NodeHardware nhw = cluster.admin.resources(NodeHardware.class).withName(JoulieApi.nodePowerProfileName(NODE)).get();
        assertThat(nhw.getStatus().gpu().control()).isEqualTo(NodeHardwareStatus.Control.NVML);
        assertThat(nhw.getStatus().gpu().devices()).extracting(NodeHardwareStatus.GpuBoard::maxWatts).containsExactly(700.0, 700.0);
        assertThat(nhw.getStatus().cpu().packages()).extracting(NodeHardwareStatus.CpuPackage::maxWatts).containsExactly(400.0, 400.0);

        cluster.policy("{\"type\":\"static_partition\",\"staticHpFrac\":0.0}");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .untilAsserted(() -> assertThat(cluster.states()).containsEntry(NODE, "ActiveEco"));
        awaitLimitsFollowThePlan(60);
        // Each change of what the agent applied is an Event on its Node, which kubectl describe node shows.
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            String describe = cluster.kubectl(null, "describe", "node", NODE).ok().output();
            assertThat(describe.lines().filter(l -> l.contains("CapApplied") && l.contains("joulie-agent")).count())
                    .as("CapApplied Events in kubectl describe node %s:%n%s", NODE, describe).isGreaterThanOrEqualTo(2);
        });

        // a crash (SIGKILL, an OOM kill): the eco caps stay, and so do the originals the agent kept in its state directory
        agent.kill();
        assertThat(nvml.limitMw(0)).isEqualTo(420_000);
        assertThat(host.stateDir().resolve("originals.json")).exists();
        assertThat(host.stateDir().resolve("gpu-originals.json")).exists();
        agent = cluster.startNodeAgent("agent-" + NODE + "-after-crash", NODE, environment);
        JavaApp successor = agent;
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> assertThat(successor.logLines())
                .anySatisfy(line -> assertThat(line).contains("Using the originals an earlier agent process of this boot kept in "
                        + host.stateDir().resolve("originals.json")))
                .anySatisfy(line -> assertThat(line).contains("GPU limits an earlier agent process of this boot kept in "
                        + host.stateDir().resolve("gpu-originals.json")).contains("{0=650000, 1=650000} mW")));
        awaitLimitsFollowThePlan(60);

        // the next agent process restores what the first found, not the caps the crash left
        agent.process().destroy();
        assertThat(agent.process().waitFor(30, TimeUnit.SECONDS)).as("the agent exits on SIGTERM").isTrue();
        for (int pkg = 0; pkg < host.packages(); pkg++) {
            assertThat(host.limit(pkg)).as("package " + pkg + " back at the limit the agent found")
                    .isEqualTo(Long.toString(FakeHost.ORIGINAL_LIMIT_UW));
        }
        for (int board = 0; board < 2; board++) {
            assertThat(nvml.limitMw(board)).as("GPU " + board + " back at the limit the agent found").isEqualTo(BOARD_LIMIT_FOUND_MW);
        }
        assertThat(nvml.calls()).as("NVML closed after the boards were restored").endsWith("nvmlShutdown");
        assertThat(host.stateDir().resolve("originals.json")).as("the kept originals go after the restore").doesNotExist();
        assertThat(host.stateDir().resolve("gpu-originals.json")).as("the boards' too").doesNotExist();
        // and it said so in the node's NodePowerProfile: the operator does not count on the cap it asked for
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            NodePowerProfile npp = PoolAgentIT.profile(NODE);
            assertThat(npp.getStatus().applied().cpu().result()).isEqualTo(ControlResult.RESTORED);
            assertThat(npp.getStatus().applied().cpu().message()).startsWith("agent stopped; ");
            assertThat(npp.getStatus().applied().gpu().result()).isEqualTo(ControlResult.RESTORED);
            assertThat(npp.getStatus().agent()).as("the operator's verdict").isEqualTo(CapConfirmation.Waiting);
            assertThat(npp.getStatus().agentMessage()).contains("restored");
        });
    }
}
