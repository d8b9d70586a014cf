package io.joulie.e2e.cluster;

import io.joulie.api.v1alpha1.ControlResult;
import io.joulie.api.v1alpha1.FieldManagers;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodeHardware;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.GpuPower;
import io.joulie.api.v1alpha1.NodePowerProfileStatus;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.harness.JavaApp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Scenario 7, agents on simulated hardware: the packaged agent in pool mode, with a token of a ServiceAccount bound to
 * the install's {@code joulie-agent-pool} role (and nothing else), serves the kwok nodes through a cluster
 * TelemetryProfile's HTTP backends: the simulated hardware describes every node's packages and, on {@link #GPU_NODES},
 * its GPU boards; the agent publishes that as the nodes' NodeHardware, the operator writes percent caps (its defaults)
 * and, for the GPU nodes, GPU caps, and the agent sends each node the watts its percents mean on that hardware and
 * answers in the node's NodePowerProfile status; a change of plan follows.
 */
@Order(7)
class PoolAgentIT extends ClusterScenario {
    static final Set<String> GPU_NODES = Set.of("kwok-4", "kwok-5");
    static SimulatedHardware hardware;
    static JavaApp agent;

    @BeforeAll
    static void start() throws Exception {
        hardware = new SimulatedHardware(GPU_NODES);
        cluster.kubectl("""
                apiVersion: joulie.io/v1alpha1
                kind: TelemetryProfile
                metadata: {name: e2e-simulated-hardware}
                spec:
                  target: {scope: cluster}
                  sources:
                    cpu: {type: http, http: {endpoint: "%1$s/telemetry/{node}", timeoutSeconds: 5}}
                    gpu: {type: http, http: {endpoint: "%1$s/telemetry/{node}", timeoutSeconds: 5}}
                  controls:
                    cpu: {type: http, http: {endpoint: "%1$s/control/{node}", timeoutSeconds: 5, mode: rapl}}
                    gpu: {type: http, http: {endpoint: "%1$s/control/{node}", timeoutSeconds: 5}}
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
            // the simulated nodes' inventories go with their simulator (a node agent writes its own)
            cluster.kubectl(null, "delete", "nodehardwares", "--all", "--ignore-not-found");
            cluster.policy("null");
        }
        removeAgentReports();
    }

    static NodePowerProfile profile(String node) {
        return cluster.admin.resources(NodePowerProfile.class).withName(JoulieApi.nodePowerProfileName(node)).get();
    }

    /**
     * The percent of its packages' maximum the node's profile asks for (the operator's defaults are percents); NaN (no
     * percent equals it) while it has planned none, so awaits go on.
     */
    static double plannedPercent(String node) {
        NodePowerProfile npp = profile(node);
        return npp == null ? Double.NaN : npp.getSpec().cpu().packagePowerCapPercent();
    }

    @Test
    void everyNodesCapsReachItsHardwareAsTheWattsItsPercentsMeanThereAndAreReported() {
        double nodeMax = 2 * SimulatedHardware.PACKAGE_MAX_WATTS;
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            for (String node : RealCluster.MANAGED) {
                assertThat(hardware.caps()).as("cap sent for " + node).containsEntry(node, nodeMax * plannedPercent(node) / 100);
                NodePowerProfile npp = profile(node);
                assertThat(npp.getStatus()).as("status of " + node + "'s NodePowerProfile").isNotNull();
                NodePowerProfileStatus.Applied applied = npp.getStatus().applied();
                assertThat(applied).as("the agent's answer for " + node).isNotNull();
                assertThat(applied.generation()).as(node).isEqualTo(npp.getMetadata().getGeneration());
                assertThat(applied.cpu()).as("CPU answer for " + node).isNotNull();
                assertThat(applied.cpu().result()).as(node).isEqualTo(ControlResult.APPLIED);
                assertThat(applied.cpu().backend()).isEqualTo("http");
                NodeHardware nhw = cluster.admin.resources(NodeHardware.class).withName(JoulieApi.nodePowerProfileName(node)).get();
                assertThat(nhw).as("NodeHardware of " + node + ", from the simulated hardware's description").isNotNull();
                assertThat(nhw.getStatus().cpu().packages()).hasSize(2);
                assertThat(nhw.getStatus().cpu().control()).isEqualTo(NodeHardwareStatus.Control.HTTP);
                if (GPU_NODES.contains(node)) {
                    assertThat(nhw.getStatus().gpu().count()).isEqualTo(SimulatedHardware.GPUS);
                    GpuPower gpu = profile(node).getSpec().gpu();
                    assertThat(gpu).as("GPU cap of " + node).isNotNull();
                    assertThat(hardware.gpuCaps()).as("GPU cap sent for " + node)
                            .containsEntry(node, SimulatedHardware.GPU_MAX_WATTS * gpu.powerCapPercent() / 100);
                    assertThat(applied.gpu()).as("GPU answer for " + node).isNotNull();
                    assertThat(applied.gpu().result()).isEqualTo(ControlResult.APPLIED);
                    assertThat(applied.gpu().backend()).isEqualTo("http");
                    assertThat(applied.gpu().boards()).hasSize(SimulatedHardware.GPUS);
                } else {
                    assertThat(profile(node).getSpec().gpu()).as("no GPU cap for " + node).isNull();
                }
            }
        });
        assertThat(hardware.caps()).as("no cap for the node Joulie does not manage").doesNotContainKey(RealCluster.UNMANAGED);
        assertThat(hardware.gpuCaps()).as("no GPU cap where there is no GPU").containsOnlyKeys(GPU_NODES);

        // the whole cluster to eco: every node's hardware follows, 60 % of its maxima
        cluster.policy("{\"type\":\"static_partition\",\"staticHpFrac\":0.0}");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            for (String node : RealCluster.MANAGED) {
                assertThat(plannedPercent(node)).isEqualTo(60.0);
                assertThat(hardware.caps()).containsEntry(node, 0.6 * nodeMax);
            }
            for (String node : GPU_NODES) {
                assertThat(hardware.gpuCaps()).containsEntry(node, 0.6 * SimulatedHardware.GPU_MAX_WATTS);
            }
        });
    }

    /**
     * Each field of a NodePowerProfile has one writer: on every managed node's profile the agents' field manager owns
     * {@code status.applied} and nothing else, and no other manager owns any of it; the operator's owns the spec and the
     * rest of the status.
     */
    @Test
    void theOperatorAndTheAgentOwnDisjointFieldsOfEveryNodePowerProfile() {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            for (String node : RealCluster.MANAGED) {
                NodePowerProfile npp = cluster.admin.resources(NodePowerProfile.class).withName(JoulieApi.nodePowerProfileName(node)).get();
                assertThat(npp.getStatus().applied()).as("the answer of " + node + "'s agent").isNotNull();
                var entries = npp.getMetadata().getManagedFields();
                var agentEntries = entries.stream().filter(e -> FieldManagers.AGENT.equals(e.getManager())).toList();
                assertThat(agentEntries).as("the agent's field manager on " + node).isNotEmpty().allSatisfy(e -> {
                    assertThat(e.getOperation()).isEqualTo("Apply");
                    assertThat(e.getSubresource()).isEqualTo("status");
                    Map<String, Object> fields = e.getFieldsV1().getAdditionalProperties();
                    assertThat(fields).as("what the agent owns on " + node).containsOnlyKeys("f:status");
                    assertThat(keys(fields.get("f:status"))).containsOnly("f:applied");
                });
                var operatorEntries = entries.stream().filter(e -> FieldManagers.OPERATOR.equals(e.getManager())).toList();
                assertThat(operatorEntries).as("the operator's field manager on " + node)
                        .anySatisfy(e -> assertThat(e.getFieldsV1().getAdditionalProperties()).containsKey("f:spec"))
                        .anySatisfy(e -> assertThat(e.getFieldsV1().getAdditionalProperties()).containsKey("f:status"));
                assertThat(entries).filteredOn(e -> !FieldManagers.AGENT.equals(e.getManager())).as("no other writer of "
                        + "status.applied on " + node).allSatisfy(e -> {
                            Object status = e.getFieldsV1().getAdditionalProperties().get("f:status");
                            assertThat(keys(status)).doesNotContain("f:applied");
                        });
            }
        });
    }

    /** The keys of a managed-fields map (fieldsV1), as text; none for null. */
    static java.util.List<String> keys(Object fields) {
        return fields == null ? java.util.List.of() : ((Map<?, ?>) fields).keySet().stream().map(String::valueOf).toList();
    }
}
