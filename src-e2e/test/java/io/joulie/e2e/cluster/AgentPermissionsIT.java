package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.joulie.api.v1alpha1.ControlResult;
import io.joulie.api.v1alpha1.FieldManagers;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodeHardware;
import io.joulie.api.v1alpha1.NodeHardwareSpec;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileSpec;
import io.joulie.api.v1alpha1.NodePowerProfileStatus;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.Scope;
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
 * node (what every node holds, and a compromised node could use) may write only what belongs to that node: its answer
 * ({@code status.applied}) in a NodePowerProfile of its node, the NodeHardware of its node and the
 * {@code feature.joulie.io/} labels of its Node. RBAC refuses every TelemetryProfile write (routing is written by
 * people) and the NodePowerProfile spec; the admission policy the operator creates refuses the rest, which RBAC alone
 * cannot tell apart: the answer for another node, the operator's part of its own node's status, another node's
 * NodeHardware or Node, other labels on its own Node. A token
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
            for (String npp : new String[]{"e2e-own-profile", "e2e-other-profile"}) {
                cluster.kubectl(null, "delete", "nodepowerprofile", npp, "--ignore-not-found");
            }
            for (String tp : new String[]{"e2e-intruder-cluster"}) {
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

    static io.fabric8.kubernetes.api.model.Event nodeEvent(String node) {
        return io.joulie.api.v1alpha1.JoulieEvents.event(new io.fabric8.kubernetes.api.model.ObjectReferenceBuilder()
                .withApiVersion("v1").withKind("Node").withName(node).withUid(node).build(), "Normal", "E2E", "e2e", "joulie-agent",
                NODE, java.time.Instant.now());
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

    /** Refused by RBAC (403): the agent's ServiceAccount has no such verb on the resource. */
    static void forbidden(String why, Executable write, String message) {
        assertThatThrownBy(write::execute).as(why).isInstanceOfSatisfying(KubernetesClientException.class, e -> {
            assertThat(e.getCode()).isEqualTo(403);
            assertThat(e.getMessage()).contains(message);
        });
    }

    /**
     * A NodePowerProfile of its own for {@code node} (not the operator's, which the node's agent answers), with the
     * operator's part of the status set as the operator would.
     */
    static NodePowerProfile profileOf(String name, String node) {
        NodePowerProfile npp = new NodePowerProfile();
        npp.setMetadata(new ObjectMetaBuilder().withName(name).build());
        npp.setSpec(new NodePowerProfileSpec(node, Profile.ECO, NodePowerProfileSpec.CpuPower.watts(100), null));
        cluster.admin.resource(npp).createOr(NonDeletingOperation::update);
        NodePowerProfile created = cluster.admin.resources(NodePowerProfile.class).withName(name).get();
        created.setStatus(new NodePowerProfileStatus(PowerState.ActiveEco, "2026-01-01T00:00:00Z", "e2e", 1L));
        return cluster.admin.resource(created).updateStatus();
    }

    /** An answer in {@code status.applied} of the NodePowerProfile {@code name}, applied as the agent does. */
    static NodePowerProfile answer(KubernetesClient client, String name, String message) {
        NodePowerProfile answer = new NodePowerProfile();
        answer.setMetadata(new ObjectMetaBuilder().withName(name).build());
        answer.setStatus(NodePowerProfileStatus.ofApplied(new NodePowerProfileStatus.Applied(1L, new NodePowerProfileStatus.Cpu(
                ControlResult.APPLIED, "powercap", 100.0, null, null, message), null, "2026-01-01T00:00:00Z")));
        return client.resource(answer).subresource("status").patch(FieldManagers.apply(FieldManagers.AGENT), answer);
    }

    @Test
    void anAgentTokenWritesOnlyWhatBelongsToItsNode() {
        TelemetryProfileSpec.Controls none = new TelemetryProfileSpec.Controls(
                new TelemetryProfileSpec.CpuControl(TelemetryProfileSpec.ControlType.NONE, null), null);
        forbidden("a TelemetryProfile (routing is written by people)",
                () -> agent.resource(tp("e2e-intruder-cluster", Scope.CLUSTER, null, none)).create(),
                "cannot create resource \"telemetryprofiles\"");
        NodePowerProfile own = profileOf("e2e-own-profile", NODE);
        profileOf("e2e-other-profile", OTHER);
        forbidden("the spec of its own node's NodePowerProfile", () -> agent.resources(NodePowerProfile.class)
                .withName(own.getMetadata().getName()).patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"profile\":\"performance\"}}"),
                "cannot patch resource \"nodepowerprofiles\"");
        refused("another node's answer", () -> answer(agent, "e2e-other-profile", "e2e intruder"),
                "the joulie-agent of node " + NODE + " may write only the status of the NodePowerProfile of its node");
        refused("the operator's part of its own node's status", () -> agent.resources(NodePowerProfile.class)
                .withName(own.getMetadata().getName()).subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE),
                        "{\"status\":{\"agent\":\"Confirmed\",\"state\":\"ActivePerformance\"}}"),
                "the joulie-agent may write only status.applied of a NodePowerProfile");
        refused("another node's NodeHardware", () -> agent.resource(hardware("e2e-intruder-hardware", OTHER)).create(),
                "the joulie-agent of node " + NODE + " may write only the NodeHardware of its node");
        refused("another Node's labels", () -> label(agent, OTHER, "feature.joulie.io/rapl", "false"),
                "the joulie-agent of node " + NODE + " may not change Node " + OTHER);
        refused("its own Node's power profile label", () -> label(agent, NODE, JoulieApi.POWER_PROFILE_LABEL, "performance"),
                "the joulie-agent may change only the feature.joulie.io/ labels of its Node");
        refused("a token without a node claim", () -> label(unbound, NODE, "feature.joulie.io/e2e", "unbound"),
                "may write only with a token bound to a Pod on a Node");
        refused("an Event about another Node", () -> agent.v1().events().inNamespace("default").resource(nodeEvent(OTHER)).create(),
                "the joulie-agent of node " + NODE + " may record Events about its own Node only");
        assertThat(cluster.admin.resources(TelemetryProfile.class).withName("e2e-intruder-cluster").get()).isNull();
        assertThat(cluster.admin.resources(NodePowerProfile.class).withName("e2e-other-profile").get().getStatus().applied()).isNull();
        assertThat(cluster.admin.nodes().withName(OTHER).get().getMetadata().getLabels()).doesNotContainKey("feature.joulie.io/rapl");

        // what belongs to its node passes: its Node's capability labels, its answer in its node's NodePowerProfile, Events
        label(agent, NODE, "feature.joulie.io/e2e", "yes");
        assertThat(cluster.admin.nodes().withName(NODE).get().getMetadata().getLabels()).containsEntry("feature.joulie.io/e2e", "yes");
        assertThat(answer(agent, "e2e-own-profile", "e2e").getStatus().applied().cpu().message()).isEqualTo("e2e");
        agent.v1().events().inNamespace("default").resource(nodeEvent(NODE)).create();
        NodePowerProfile answered = cluster.admin.resources(NodePowerProfile.class).withName("e2e-own-profile").get();
        assertThat(answered.getStatus().state()).as("the operator's fields stay").isEqualTo(own.getStatus().state());
        assertThat(answered.getStatus().since()).isEqualTo(own.getStatus().since());
        NodeHardware ownHardware = agent.resource(hardware("e2e-own-hardware", NODE)).create();
        ownHardware.setStatus(new NodeHardwareStatus(null, null, "2026-01-01T00:00:00Z"));
        agent.resource(ownHardware).updateStatus();
        assertThat(cluster.admin.resources(NodeHardware.class).withName("e2e-own-hardware").get().getStatus().updatedAt())
                .isEqualTo("2026-01-01T00:00:00Z");
    }
}
