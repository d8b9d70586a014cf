package io.joulie.e2e.cluster;

import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Scenario 7, agents on simulated hardware: the packaged agent in pool mode, with a token of a ServiceAccount bound to
 * the install's {@code joulie-agent-pool} role (and nothing else), serves the kwok nodes through a cluster TelemetryProfile's HTTP
 * backend: every node's cap reaches the simulated hardware and the agent reports it in the node's
 * TelemetryProfile status; a change of plan follows.
 */
@Order(7)
class PoolAgentIT extends ClusterScenario {
    static SimulatedHardware hardware;
    static JavaProcess agent;

    @BeforeAll
    static void start() throws Exception {
        hardware = new SimulatedHardware();
        cluster.kubectl("""
                apiVersion: joulie.io/v1alpha1
                kind: TelemetryProfile
                metadata: {name: e2e-simulated-hardware}
                spec:
                  target: {scope: cluster}
                  sources:
                    cpu: {type: http, http: {endpoint: "%1$s/telemetry/{node}", timeoutSeconds: 5}}
                  controls:
                    cpu: {type: http, http: {endpoint: "%1$s/control/{node}", timeoutSeconds: 5, mode: rapl}}
                """.formatted(hardware.base()), "apply", "-f", "-").ok();
        // the pool role comes with the install (kubernetes/20-operator.yml); the ServiceAccount is the user's
        agent = cluster.startPoolAgent("agent-pool", Map.of("POOL_NODE_SELECTOR", "joulie.io/managed=true",
                "AGENT_RECONCILE_INTERVAL", "2s"));
    }

    @AfterAll
    static void stop() {
        if (agent != null) {
            agent.close();
        }
        if (hardware != null) {
            hardware.close();
        }
        if (cluster != null) {
            cluster.kubectl(null, "delete", "telemetryprofile", "e2e-simulated-hardware", "--ignore-not-found");
            cluster.policy("null");
        }
    }

    /** The cap the operator planned for the node; NaN (no cap equals it) while it has planned none, so awaits go on. */
    static double plannedCap(String node) {
        NodePowerProfile npp = cluster.admin.resources(NodePowerProfile.class).withName(JoulieApi.nodePowerProfileName(node)).get();
        return npp == null ? Double.NaN : npp.getSpec().cpu().packagePowerCapWatts();
    }

    @Test
    void everyNodesCapReachesItsHardwareAndIsReported() {
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            for (String node : RealCluster.MANAGED) {
                assertThat(hardware.caps()).as("cap sent for " + node).containsEntry(node, plannedCap(node));
                TelemetryProfile tp = cluster.admin.resources(TelemetryProfile.class).withName(JoulieApi.nodePowerProfileName(node)).get();
                assertThat(tp).as("node-scoped TelemetryProfile of " + node).isNotNull();
                assertThat(tp.getStatus()).as("status of " + node + "'s TelemetryProfile").isNotNull();
                assertThat(tp.getStatus().control()).as("control status of " + node).isNotNull();
                assertThat(tp.getStatus().control().cpu()).as("CPU control status of " + node).isNotNull();
                assertThat(tp.getStatus().control().cpu().result()).as(node).isEqualTo(TelemetryProfileStatus.Result.APPLIED);
                assertThat(tp.getStatus().control().cpu().backend()).isEqualTo("http");
            }
        });
        assertThat(hardware.caps()).as("no cap for the node Joulie does not manage").doesNotContainKey(RealCluster.UNMANAGED);

        // the whole cluster to eco: every node's hardware follows
        cluster.policy("{\"type\":\"static_partition\",\"staticHpFrac\":0.0}");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            for (String node : RealCluster.MANAGED) {
                assertThat(plannedCap(node)).isEqualTo(120.0);
                assertThat(hardware.caps()).containsEntry(node, 120.0);
            }
        });
    }
}
