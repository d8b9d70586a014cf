package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodeHardware;
import io.joulie.api.v1alpha1.NodeHardwareSpec;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.Scope;
import io.joulie.api.v1alpha1.TelemetryProfileStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Least privilege for the agent, on the real API server: a token of the agent's ServiceAccount bound to a Pod on one
 * node (what every node holds, and a compromised node could use) may write only what belongs to that node: the
 * node-scoped TelemetryProfile of its node (without routing), the NodeHardware of its node and the
 * {@code feature.joulie.io/} labels of its Node. The
 * admission policy the operator creates refuses the rest, which RBAC alone cannot tell apart: a cluster-scoped
 * TelemetryProfile (every agent would obey it), another node's profile or Node, other labels on its own Node. A token
 * of that ServiceAccount without a node claim writes nothing. Its requests carry the user agent {@link #INTRUDER}, so
 * that the suite's check that nothing else was refused ({@code TeardownIT}) can tell them apart.
 */
@Order(10)
class AgentPermissionsIT extends ClusterScenario {
    static final String INTRUDER = "joulie-e2e-intruder";
    static final String NODE = RealCluster.MANAGED.get(1);
    static final String OTHER = RealCluster.MANAGED.get(2);
    static final String POLICY = "joulie-agent-node-scope";
    static KubernetesClient agent;
    static KubernetesClient unbound;

    @BeforeAll
    static void tokens() {
        agent = client(cluster.nodeAgentToken(NODE));
        unbound = client(cluster.kubectl(null, "create", "token", RealCluster.AGENT_SA, "-n", RealCluster.NAMESPACE, "--duration=1h")
                .ok().output().strip());
        await().atMost(Duration.ofSeconds(60)).until(() -> cluster.admin.admissionRegistration().v1().validatingAdmissionPolicyBindings()
                .withName(POLICY).get() != null);
    }

    @AfterAll
    static void close() {
        if (agent != null) {
            agent.close();
            unbound.close();
        }
        if (cluster != null) {
            for (String tp : new String[]{"e2e-intruder-cluster", "e2e-intruder-other", "e2e-intruder-routing", "e2e-own"}) {
                cluster.kubectl(null, "delete", "telemetryprofile", tp, "--ignore-not-found");
            }
            for (String nhw : new String[]{"e2e-intruder-hardware", "e2e-own-hardware"}) {
                cluster.kubectl(null, "delete", "nodehardware", nhw, "--ignore-not-found");
            }
            cluster.kubectl(null, "label", "node", NODE, "feature.joulie.io/e2e-");
        }
    }

    static KubernetesClient client(String token) {
        Config config = Config.empty();
        config.setMasterUrl(cluster.controlPlane.server());
        config.setOauthToken(token);
        config.setTrustCerts(true);
        config.setDisableHostnameVerification(true);
        config.setUserAgent(INTRUDER);
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    static TelemetryProfile tp(String name, Scope scope, String node, TelemetryProfileSpec.Controls controls) {
        TelemetryProfile tp = new TelemetryProfile();
        tp.setMetadata(new ObjectMetaBuilder().withName(name).build());
        tp.setSpec(new TelemetryProfileSpec(new TelemetryProfileSpec.Target(scope, node), null, controls));
        return tp;
    }

    static NodeHardware hardware(String name, String node) {
        NodeHardware nhw = new NodeHardware();
        nhw.setMetadata(new ObjectMetaBuilder().withName(name).build());
        nhw.setSpec(new NodeHardwareSpec(node));
        return nhw;
    }

    static void label(KubernetesClient client, String node, String key, String value) {
        client.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"metadata\":{\"labels\":{\"" + key + "\":\"" + value + "\"}}}");
    }

    /** Refused by the admission policy (403), with its reason; retried while the new policy reaches the API server's cache. */
    static void refused(String why, Executable write, String message) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                assertThatThrownBy(write::execute).as(why).isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(403);
                    assertThat(e.getMessage()).contains("ValidatingAdmissionPolicy '" + POLICY + "'").contains(message);
                }));
    }

    @Test
    void anAgentTokenWritesOnlyWhatBelongsToItsNode() {
        TelemetryProfileSpec.Controls none = new TelemetryProfileSpec.Controls(
                new TelemetryProfileSpec.CpuControl(TelemetryProfileSpec.ControlType.NONE, null), null);
        refused("a cluster-scoped TelemetryProfile, which every agent would obey",
                () -> agent.resource(tp("e2e-intruder-cluster", Scope.CLUSTER, null, none)).create(),
                "the joulie-agent of node " + NODE + " may write only the node-scoped TelemetryProfile of its node");
        refused("another node's TelemetryProfile", () -> agent.resource(tp("e2e-intruder-other", Scope.NODE, OTHER, null)).create(),
                "may write only the node-scoped TelemetryProfile of its node");
        refused("routing in its own node's TelemetryProfile",
                () -> agent.resource(tp("e2e-intruder-routing", Scope.NODE, NODE, none)).create(),
                "the joulie-agent may not set or change the routing");
        refused("another node's NodeHardware", () -> agent.resource(hardware("e2e-intruder-hardware", OTHER)).create(),
                "the joulie-agent of node " + NODE + " may write only the NodeHardware of its node");
        refused("another Node's labels", () -> label(agent, OTHER, "feature.joulie.io/rapl", "false"),
                "the joulie-agent of node " + NODE + " may not change Node " + OTHER);
        refused("its own Node's power profile label", () -> label(agent, NODE, JoulieApi.POWER_PROFILE_LABEL, "performance"),
                "the joulie-agent may change only the feature.joulie.io/ labels of its Node");
        refused("a token without a node claim", () -> label(unbound, NODE, "feature.joulie.io/e2e", "unbound"),
                "may write only with a token bound to a Pod on a Node");
        assertThat(cluster.admin.resources(TelemetryProfile.class).withName("e2e-intruder-cluster").get()).isNull();
        assertThat(cluster.admin.nodes().withName(OTHER).get().getMetadata().getLabels()).doesNotContainKey("feature.joulie.io/rapl");

        // what belongs to its node passes: its Node's capability labels, its node-scoped profile and that profile's status
        label(agent, NODE, "feature.joulie.io/e2e", "yes");
        assertThat(cluster.admin.nodes().withName(NODE).get().getMetadata().getLabels()).containsEntry("feature.joulie.io/e2e", "yes");
        TelemetryProfile own = tp("e2e-own", Scope.NODE, NODE, null);
        own.getMetadata().setLabels(Map.of(JoulieApi.NODE_LABEL, NODE));
        own = agent.resource(own).create();
        own.setStatus(new TelemetryProfileStatus(new TelemetryProfileStatus.ControlStatus(new TelemetryProfileStatus.ControlResult(
                "powercap", TelemetryProfileStatus.Result.APPLIED, "e2e", Map.of(), "2026-01-01T00:00:00Z"), null)));
        agent.resource(own).updateStatus();
        assertThat(cluster.admin.resources(TelemetryProfile.class).withName("e2e-own").get().getStatus().control().cpu().message())
                .isEqualTo("e2e");
        NodeHardware ownHardware = agent.resource(hardware("e2e-own-hardware", NODE)).create();
        ownHardware.setStatus(new NodeHardwareStatus(null, null, "2026-01-01T00:00:00Z"));
        agent.resource(ownHardware).updateStatus();
        assertThat(cluster.admin.resources(NodeHardware.class).withName("e2e-own-hardware").get().getStatus().updatedAt())
                .isEqualTo("2026-01-01T00:00:00Z");
    }
}
