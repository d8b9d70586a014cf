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
    static final String OPERATOR_POLICY = "joulie-operator-scope";
    static KubernetesClient agent;
    static KubernetesClient unbound;
    static KubernetesClient operator;
    /** NodeHardware this test created under the nodes' own names (removed after it: it says an agent serves the node). */
    static final java.util.List<String> madeHardware = new java.util.ArrayList<>();

    @BeforeAll
    static void tokens() {
        agent = client(cluster.nodeAgentToken(NODE));
        unbound = client(cluster.kubectl(null, "create", "token", RealCluster.AGENT_SA, "-n", RealCluster.NAMESPACE, "--duration=1h")
                .ok().output().strip());
        operator = client(cluster.kubectl(null, "create", "token", RealCluster.OPERATOR_SA, "-n", RealCluster.NAMESPACE,
                "--duration=1h").ok().output().strip());
        await().atMost(Duration.ofSeconds(60)).until(() -> cluster.admin.admissionRegistration().v1().validatingAdmissionPolicyBindings()
                .withName(POLICY).get() != null);
    }

    @AfterAll
    static void close() {
        if (agent != null) {
            agent.close();
            unbound.close();
            operator.close();
        }
        if (cluster != null) {
            for (String npp : new String[]{"e2e-own-profile", "e2e-other-profile"}) {
                cluster.kubectl(null, "delete", "nodepowerprofile", npp, "--ignore-not-found");
            }
            for (String tp : new String[]{"e2e-intruder-cluster"}) {
                cluster.kubectl(null, "delete", "telemetryprofile", tp, "--ignore-not-found");
            }
            for (String nhw : madeHardware) {
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
        return hardware(name, node, Map.of(JoulieApi.NODE_LABEL, node));
    }

    static NodeHardware hardware(String name, String node, Map<String, String> labels) {
        NodeHardware nhw = new NodeHardware();
        nhw.setMetadata(new ObjectMetaBuilder().withName(name).withLabels(labels).build());
        nhw.setSpec(new NodeHardwareSpec(node));
        return nhw;
    }

    static void label(KubernetesClient client, String node, String key, String value) {
        client.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"metadata\":{\"labels\":{\"" + key + "\":\"" + value + "\"}}}");
    }

    /** Refused by the admission policy (403), with its reason; retried while the new policy reaches the API server's cache. */
    static void refused(String why, Executable write, String message) {
        refusedBy(POLICY, why, write, message);
    }

    static void refusedBy(String policy, String why, Executable write, String message) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                assertThatThrownBy(write::execute).as(why).isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(403);
                    assertThat(e.getMessage()).contains("ValidatingAdmissionPolicy '" + policy + "'").contains(message);
                }));
    }

    /** Refused by the CRD's schema (422): a field larger than its limit. */
    static void tooLarge(String why, Executable write, String field) {
        assertThatThrownBy(write::execute).as(why).isInstanceOfSatisfying(KubernetesClientException.class, e -> {
            assertThat(e.getCode()).isEqualTo(422);
            assertThat(e.getMessage()).contains(field).containsAnyOf("Too long", "Too many");
        });
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
        NodeHardware ownHardware = ownHardware();
        ownHardware.setStatus(new NodeHardwareStatus(null, null, "2026-01-01T00:00:00Z"));
        agent.resource(ownHardware).updateStatus();
        assertThat(cluster.admin.resources(NodeHardware.class).withName(ownHardware.getMetadata().getName()).get().getStatus()
                .updatedAt()).isEqualTo("2026-01-01T00:00:00Z");
    }

    /** The NodeHardware of {@link #NODE} under its own name and label, created by the agent's token if there is none. */
    static NodeHardware ownHardware() {
        String name = JoulieApi.nodePowerProfileName(NODE);
        NodeHardware found = cluster.admin.resources(NodeHardware.class).withName(name).get();
        if (found != null) {
            return found;
        }
        madeHardware.add(name);
        return agent.resource(hardware(name, NODE)).create();
    }

    /**
     * Another node's objects by name (H2a of the 2026-11-27 review): the NodeHardware name and joulie.io/node label are
     * derived from the token's node, so an agent can neither create another node's NodeHardware before that node's agent
     * does (under the other name, or unlabelled) nor write the one it has; nor add owners or finalizers to its own Node.
     */
    @Test
    void anAgentTokenCannotTakeAnotherNodesObjectsByNameNorChangeItsNodesOwners() {
        String own = JoulieApi.nodePowerProfileName(NODE);
        String others = JoulieApi.nodePowerProfileName(OTHER);
        refused("another node's NodeHardware name, for its own node", () -> agent.resource(hardware(others, NODE)).create(),
                "the joulie-agent of node " + NODE + " may write only the NodeHardware named " + own + ", not " + others);
        refused("its own NodeHardware without the joulie.io/node label", () -> agent.resource(hardware(own, NODE, Map.of())).create(),
                "may write a NodeHardware only labelled joulie.io/node=" + NODE);
        refused("its own NodeHardware labelled for another node", () -> agent.resource(hardware(own, NODE,
                Map.of(JoulieApi.NODE_LABEL, OTHER))).create(), "may write a NodeHardware only labelled joulie.io/node=" + NODE);
        if (cluster.admin.resources(NodeHardware.class).withName(others).get() == null) {
            madeHardware.add(others);
            cluster.admin.resource(hardware(others, OTHER)).create();
        }
        NodeHardware theirs = cluster.admin.resources(NodeHardware.class).withName(others).get();
        theirs.setStatus(new NodeHardwareStatus(null, null, "2026-01-01T00:00:00Z"));
        refused("the status of another node's NodeHardware", () -> agent.resource(theirs).updateStatus(),
                "the joulie-agent of node " + NODE + " may write only the NodeHardware of its node");
        refused("a finalizer on its own Node", () -> agent.nodes().withName(NODE).patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"metadata\":{\"finalizers\":[\"e2e.joulie.io/hold\"]}}"), "the joulie-agent may change only the feature.joulie.io/ labels of its Node");
        refused("an owner of its own Node", () -> agent.nodes().withName(NODE).patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"metadata\":{\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"name\":\"x\","
                        + "\"uid\":\"00000000-0000-0000-0000-000000000000\"}]}}"),
                "the joulie-agent may change only the feature.joulie.io/ labels of its Node");
        assertThat(cluster.admin.nodes().withName(NODE).get().getMetadata().getFinalizers()).isNullOrEmpty();
        assertThat(cluster.admin.nodes().withName(NODE).get().getMetadata().getOwnerReferences()).isNullOrEmpty();
    }

    /**
     * Size limits (H2b): the CRDs bound every string, list and map, so that no writer fills the watch caches of the
     * operator and of every agent; the API server refuses a larger object, from the agent's token too.
     */
    @Test
    void objectsLargerThanTheCrdsLimitsAreRefused() {
        NodeHardware ownHardware = ownHardware();
        String long1025 = "x".repeat(io.joulie.api.v1alpha1.Limits.MESSAGE + 1);
        tooLarge("a NodeHardware message over the limit", () -> rawHardwareStatus(ownHardware, Map.of("cpu", Map.of("message", long1025))),
                "status.cpu.message");
        java.util.List<Map<String, String>> packages = new java.util.ArrayList<>();
        for (int i = 0; i <= io.joulie.api.v1alpha1.Limits.DEVICES; i++) {
            packages.add(Map.of("zone", "intel-rapl:" + i));
        }
        tooLarge("more CPU packages than the limit", () -> rawHardwareStatus(ownHardware, Map.of("cpu", Map.of("packages", packages))),
                "status.cpu.packages");
        profileOf("e2e-own-profile", NODE);
        tooLarge("an answer whose message is over the limit", () -> agent.resources(NodePowerProfile.class)
                .withName("e2e-own-profile").subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE),
                        "{\"status\":{\"applied\":{\"generation\":1,\"cpu\":{\"result\":\"Applied\",\"message\":\""
                                + long1025 + "\"}}}}"), "status.applied.cpu.message");
        io.fabric8.kubernetes.api.model.GenericKubernetesResource tooLong = new io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder()
                .withApiVersion("joulie.io/v1alpha1").withKind("TelemetryProfile").withNewMetadata().withName("e2e-too-large").endMetadata()
                .addToAdditionalProperties("spec", Map.of("target", Map.of("scope", "cluster"), "sources", Map.of("cpu",
                        Map.of("type", "prometheus", "prometheus", Map.of("endpoint", "http://prometheus:9090",
                                "query", "x".repeat(io.joulie.api.v1alpha1.Limits.QUERY + 1))))))
                .build();
        tooLarge("a TelemetryProfile query over the limit, even from the cluster admin", () -> cluster.admin.resource(tooLong).create(),
                "spec.sources.cpu.prometheus.query");
        assertThat(cluster.admin.resources(TelemetryProfile.class).withName("e2e-too-large").get()).isNull();
    }

    /**
     * The agent's status update of its NodeHardware with {@code status} as given, not through the model (whose records
     * cut what they hold to the limits).
     */
    static void rawHardwareStatus(NodeHardware nhw, Map<String, Object> status) {
        var raw = agent.genericKubernetesResources(JoulieApi.API_VERSION, "NodeHardware").withName(nhw.getMetadata().getName()).get();
        raw.setAdditionalProperty("status", status);
        agent.genericKubernetesResources(JoulieApi.API_VERSION, "NodeHardware").resource(raw).updateStatus();
    }

    /**
     * The operator's own writes (M8 of the review), with its ServiceAccount's token: on a Node only the
     * joulie.io/power-profile label (the admission policy shipped with the install, joulie-operator-scope), and no
     * admission policy but its agents' (RBAC: its create is limited to that name, which server-side apply carries).
     */
    @Test
    void theOperatorsTokenChangesOnlyThePowerProfileLabelOfANodeAndOnlyItsOwnAdmissionPolicy() {
        String node = RealCluster.UNMANAGED;
        String message = "the joulie-operator may change only the joulie.io/power-profile label of Node " + node;
        refusedBy(OPERATOR_POLICY, "a taint", () -> operator.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"taints\":[{\"key\":\"e2e\",\"effect\":\"NoSchedule\"}]}}"), message);
        refusedBy(OPERATOR_POLICY, "unschedulable", () -> operator.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"unschedulable\":true}}"), message);
        refusedBy(OPERATOR_POLICY, "another label", () -> label(operator, node, "e2e.joulie.io/other", "x"), message);
        refusedBy(OPERATOR_POLICY, "an annotation", () -> operator.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"metadata\":{\"annotations\":{\"e2e\":\"x\"}}}"), message);
        // its own label passes (on the unmanaged node, which the operator leaves alone; removed again)
        label(operator, node, JoulieApi.POWER_PROFILE_LABEL, "eco");
        assertThat(cluster.admin.nodes().withName(node).get().getMetadata().getLabels()).containsEntry(JoulieApi.POWER_PROFILE_LABEL, "eco");
        operator.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"metadata\":{\"labels\":{\"" + JoulieApi.POWER_PROFILE_LABEL + "\":null}}}");
        io.fabric8.kubernetes.api.model.Node after = cluster.admin.nodes().withName(node).get();
        assertThat(after.getSpec().getTaints()).isNullOrEmpty();
        assertThat(after.getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
        assertThat(after.getMetadata().getLabels()).doesNotContainKeys("e2e.joulie.io/other", JoulieApi.POWER_PROFILE_LABEL);

        var foreign = new io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBuilder()
                .withNewMetadata().withName("e2e-foreign").endMetadata()
                .withNewSpec().withNewMatchConstraints().addNewResourceRule().withApiGroups("").withApiVersions("v1")
                .withOperations("CREATE").withResources("pods").endResourceRule().endMatchConstraints()
                .addNewValidation().withExpression("false").endValidation().endSpec().build();
        forbidden("another admission policy, created", () -> operator.resource(foreign).create(),
                "cannot create resource \"validatingadmissionpolicies\"");
        forbidden("another admission policy, applied", () -> operator.resource(foreign).forceConflicts().serverSideApply(),
                "validatingadmissionpolicies");
        assertThat(cluster.admin.admissionRegistration().v1().validatingAdmissionPolicies().withName("e2e-foreign").get()).isNull();
    }

    /**
     * The agent DaemonSet came after its admission policy and binding (M8): the operator's first successful write of the
     * DaemonSet, in the API server's audit log, follows its first successful writes of both.
     */
    @Test
    void theAgentDaemonSetIsWrittenOnlyAfterItsAdmissionPolicyAndBinding() {
        String operatorUser = AuditLog.serviceAccount(RealCluster.NAMESPACE, RealCluster.OPERATOR_SA);
        await().atMost(Duration.ofSeconds(60)).until(() -> cluster.admin.apps().daemonSets().inNamespace(RealCluster.NAMESPACE)
                .withName("joulie-agent").get() != null);
        java.util.List<AuditLog.Entry> writes = AuditLog.read(cluster.controlPlane.auditLog()).stream()
                .filter(e -> e.user().equals(operatorUser) && e.code() / 100 == 2 && !e.watch()
                        && java.util.Set.of("create", "patch", "update").contains(e.verb()))
                .toList();
        java.time.Instant policy = first(writes, "validatingadmissionpolicies", POLICY);
        java.time.Instant binding = first(writes, "validatingadmissionpolicybindings", POLICY);
        java.time.Instant daemonSet = first(writes, "daemonsets", "joulie-agent");
        assertThat(daemonSet).as("the DaemonSet's first write").isAfterOrEqualTo(policy).isAfterOrEqualTo(binding);
    }

    static java.time.Instant first(java.util.List<AuditLog.Entry> writes, String resource, String name) {
        return writes.stream().filter(e -> resource.equals(e.resource()) && name.equals(e.name())).map(AuditLog.Entry::at)
                .findFirst().orElseThrow(() -> new AssertionError("no write of " + resource + "/" + name + " by the operator"));
    }
}
