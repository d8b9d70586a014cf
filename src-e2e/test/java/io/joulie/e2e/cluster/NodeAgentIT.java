package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileStatus;
import io.joulie.testkit.FakeHost;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Scenario 7, node mode: the packaged agent as the DaemonSet runs it on one node (NODE_NAME), with a token of the
 * agent's ServiceAccount bound to a Pod on that node (as the DaemonSet's Pod has it: the admission policy lets it write
 * only what belongs to its node) and a fake sysfs tree for its host. It labels its Node with what the host can do
 * (the {@code nodes patch} rule), creates and reports the node's TelemetryProfile (powercap), writes the planned cap
 * into the RAPL limit files (clamped to what a package allows) and follows a change of plan; on SIGTERM the limits it
 * found come back and the originals it kept in its state directory go.
 */
@Order(9)
class NodeAgentIT extends ClusterScenario {
    static final String NODE = RealCluster.MANAGED.getFirst();
    static FakeHost host;
    static JavaProcess agent;

    @BeforeAll
    static void start() throws Exception {
        // 400 W a package at most: the eco cap fits, the performance cap is clamped
        host = FakeHost.intelNode(cluster.controlPlane.workDir().resolve("host-" + NODE), 2, 400);
        Map<String, String> env = new HashMap<>(host.agentEnvironment());
        env.put("AGENT_RECONCILE_INTERVAL", "1s");
        agent = cluster.startNodeAgent("agent-" + NODE, NODE, env);
    }

    @AfterAll
    static void stop() {
        if (agent != null) {
            agent.close();
        }
        if (cluster != null) {
            cluster.policy("null");
        }
    }

    void awaitLimitsFollowThePlan(double expectedCap) {
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            assertThat(PoolAgentIT.plannedCap(NODE)).as("planned cap of " + NODE).isEqualTo(expectedCap);
            for (int pkg = 0; pkg < host.packages(); pkg++) {
                assertThat(host.limit(pkg)).as("limit of package " + pkg).isEqualTo(host.expectedLimit(pkg, expectedCap));
            }
            TelemetryProfile tp = cluster.admin.resources(TelemetryProfile.class).withName(JoulieApi.nodePowerProfileName(NODE)).get();
            assertThat(tp).as("node-scoped TelemetryProfile of " + NODE).isNotNull();
            assertThat(tp.getStatus()).as("its status").isNotNull();
            assertThat(tp.getStatus().control()).as("its control status").isNotNull();
            assertThat(tp.getStatus().control().cpu()).as("its CPU control status").isNotNull();
            assertThat(tp.getStatus().control().cpu().result()).isEqualTo(TelemetryProfileStatus.Result.APPLIED);
            assertThat(tp.getStatus().control().cpu().backend()).isEqualTo("powercap");
        });
    }

    @Test
    void theAgentLabelsItsNodeCapsItsHardwareFollowsThePlanAndRestoresOnSigterm() throws Exception {
        cluster.policy("{\"type\":\"static_partition\",\"staticHpFrac\":1.0}");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            Node node = cluster.admin.nodes().withName(NODE).get();
            assertThat(node.getMetadata().getLabels()).as("capability labels the agent put on " + NODE)
                    .containsEntry(JoulieApi.FEATURE_RAPL_WRITABLE, "true");
            assertThat(cluster.states()).containsEntry(NODE, "ActivePerformance");
        });
        double performance = PoolAgentIT.plannedCap(NODE);
        awaitLimitsFollowThePlan(performance);

        cluster.policy("{\"type\":\"static_partition\",\"staticHpFrac\":0.0}");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .untilAsserted(() -> assertThat(cluster.states()).containsEntry(NODE, "ActiveEco"));
        double eco = PoolAgentIT.plannedCap(NODE);
        assertThat(eco).as("the eco cap is below the performance cap").isLessThan(performance);
        awaitLimitsFollowThePlan(eco);

        agent.process.destroy();
        assertThat(agent.process.waitFor(30, TimeUnit.SECONDS)).as("the agent exits on SIGTERM").isTrue();
        for (int pkg = 0; pkg < host.packages(); pkg++) {
            assertThat(host.limit(pkg)).as("package " + pkg + " back at the limit the agent found")
                    .isEqualTo(Long.toString(FakeHost.ORIGINAL_LIMIT_UW));
        }
        assertThat(host.stateDir().resolve("originals.json")).as("the kept originals go after the restore").doesNotExist();
    }
}
