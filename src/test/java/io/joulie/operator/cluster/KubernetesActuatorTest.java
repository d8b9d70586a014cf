package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.joulie.api.v1alpha1.CapConfirmation;
import io.joulie.api.v1alpha1.Limits;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileSpec;
import io.joulie.api.v1alpha1.NodePowerProfileStatus;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.operator.metrics.PlannerMetrics;
import io.joulie.planner.CapStatus;
import io.joulie.planner.NodeAssignment;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The actuation against a scripted API server (expectations, not CRUD): exactly which requests a change
 * costs, how a 409 Conflict is retried on a fresh read, and that nothing is written when nothing changed.
 */
class KubernetesActuatorTest {
    static final String NPP_PATH = "/apis/joulie.io/v1alpha1/nodepowerprofiles/node-n1";
    /** Server-side apply by the operator's field manager, taking over fields (each field has one writer). */
    static final String APPLY = "?fieldManager=joulie-operator&force=true";
    static final Instant SINCE = Instant.parse("2026-11-21T12:00:00Z");

    KubernetesMockServer server;
    KubernetesClient client;
    SimpleMeterRegistry registry;
    NodePowerProfile cached;
    Node cachedNode;
    KubernetesActuator actuator;

    @BeforeEach
    void start() {
        server = new KubernetesMockServer(false);
        server.init();
        client = server.createClient();
        registry = new SimpleMeterRegistry();
        cachedNode = new NodeBuilder().withNewMetadata().withName("n1").withUid("uid-n1")
                .withLabels(Map.of("joulie.io/power-profile", "performance")).endMetadata().build();
        actuator = new KubernetesActuator(client, viewOf(), new PlannerMetrics(registry), () -> true);
    }

    /** The caches: the fields {@code cached} and {@code cachedNode}. */
    ClusterView viewOf() {
        return new ClusterView(client, java.time.Clock.systemUTC()) {
            @Override
            public NodePowerProfile profile(String name) {
                return "node-n1".equals(name) ? cached : null;
            }

            @Override
            public Node node(String name) {
                return "n1".equals(name) ? cachedNode : null;
            }
        };
    }

    @AfterEach
    void stop() throws Exception {
        actuator.close();
        client.close();
        server.destroy();
    }

    static NodePowerProfile npp(String resourceVersion, long generation, Profile profile, double cap, PowerState state) {
        NodePowerProfile npp = new NodePowerProfile();
        npp.getMetadata().setName("node-n1");
        npp.getMetadata().setResourceVersion(resourceVersion);
        npp.getMetadata().setGeneration(generation);
        npp.setSpec(new NodePowerProfileSpec("n1", profile, NodePowerProfileSpec.CpuPower.watts(cap),
                new NodePowerProfileSpec.PolicyRef("static_partition")));
        npp.setStatus(new NodePowerProfileStatus(state, SINCE.toString(), "selected for " + profile.value()
                + " by static_partition", generation));
        return npp;
    }

    /** The API server answers the spec apply, the status apply and the label patch of {@link #eco()}. */
    void expectTheWritesOfEco() {
        server.expect().patch().withPath(NPP_PATH + APPLY).andReturn(200, npp("6", 2, Profile.ECO, 120, PowerState.ActivePerformance)).once();
        server.expect().patch().withPath(NPP_PATH + "/status" + APPLY).andReturn(200, npp("7", 2, Profile.ECO, 120, PowerState.ActiveEco)).once();
        server.expect().patch().withPath("/api/v1/nodes/n1").andReturn(200, cachedNode).once();
    }

    /** {@link #eco()} decided on {@code basis}. */
    static NodeAssignment ecoOn(NodeAssignment.Basis basis) {
        NodeAssignment d = eco();
        return new NodeAssignment(d.node(), d.state(), d.since(), d.reason(), d.profile(), d.cpu(), d.gpu(), d.policyName(),
                d.label(), d.cap(), d.forcedPods(), basis);
    }

    static NodeAssignment eco() {
        return new NodeAssignment("n1", PowerState.ActiveEco, SINCE.plusSeconds(60), "selected for eco by static_partition",
                Profile.ECO, NodePowerProfileSpec.CpuPower.watts(120), null, "static_partition");
    }

    /**
     * The forced pods of a node go into its status up to the CRD's maxItems, sorted, and are counted in full: the API
     * server would refuse a longer list, and then no part of the status would be written.
     */
    @Test
    void theForcedPodsListedInTheStatusStopAtTheCrdsLimitAndAreCountedInFull() {
        List<String> forced = new ArrayList<>();
        for (int i = Limits.PODS + 40; i > 0; i--) {
            forced.add("ns/pod-" + String.format("%04d", i));
        }
        NodeAssignment many = new NodeAssignment("n1", PowerState.ActiveEco, SINCE, "forced", Profile.ECO,
                NodePowerProfileSpec.CpuPower.watts(120), null, "static_partition", "eco", CapStatus.UNREPORTED, forced);
        NodePowerProfileStatus status = KubernetesActuator.status(many, 3L, forced.size());
        assertThat(status.forcedPods()).hasSize(Limits.PODS).startsWith("ns/pod-0001", "ns/pod-0002").isSorted();
        assertThat(status.forcedPodCount()).isEqualTo(Limits.PODS + 40);

        NodePowerProfileStatus few = KubernetesActuator.status(new NodeAssignment("n1", PowerState.ActiveEco, SINCE, "forced",
                Profile.ECO, NodePowerProfileSpec.CpuPower.watts(120), null, "static_partition", "eco", CapStatus.UNREPORTED,
                List.of("ns/b", "ns/a")), 3L, 2);
        assertThat(few.forcedPods()).containsExactly("ns/a", "ns/b");
        assertThat(few.forcedPodCount()).isEqualTo(2);
        assertThat(KubernetesActuator.status(eco(), 3L, 0).forcedPodCount()).as("none forced: neither list nor count").isNull();
    }

    List<RecordedRequest> requests() throws InterruptedException {
        List<RecordedRequest> out = new ArrayList<>();
        RecordedRequest r;
        while ((r = server.takeRequest(50, TimeUnit.MILLISECONDS)) != null) {
            out.add(r);
        }
        return out;
    }

    @Test
    void aChangeCostsOneSpecUpdateOneStatusUpdateAndOneLabelPatch() throws Exception {
        cached = npp("5", 1, Profile.PERFORMANCE, 5000, PowerState.ActivePerformance);
        expectTheWritesOfEco();

        assertThat(actuator.apply(eco())).isTrue();

        List<RecordedRequest> requests = requests();
        assertThat(requests).extracting(r -> r.getMethod() + " " + r.getPath())
                .as("going down, the label first: no new performance pod before the eco cap")
                .containsExactly("PATCH /api/v1/nodes/n1", "PATCH " + NPP_PATH + APPLY, "PATCH " + NPP_PATH + "/status" + APPLY);
        assertThat(requests.get(0).getBody().readUtf8()).as("conditional on the label the decision saw")
                .isEqualTo("[{\"op\":\"test\",\"path\":\"/metadata/labels/joulie.io~1power-profile\",\"value\":\"performance\"},"
                        + "{\"op\":\"replace\",\"path\":\"/metadata/labels/joulie.io~1power-profile\",\"value\":\"eco\"}]");
        assertThat(requests.get(0).getHeader("Content-Type")).startsWith("application/json-patch+json");
        String spec = requests.get(1).getBody().readUtf8();
        assertThat(spec).contains("\"profile\":\"eco\"").contains("\"packagePowerCapWatts\":120.0").contains("\"resourceVersion\":\"5\"");
        String status = requests.get(2).getBody().readUtf8();
        assertThat(status).contains("\"state\":\"ActiveEco\"").contains("\"observedGeneration\":2")
                .contains("\"since\":\"2026-11-21T12:01:00Z\"");
    }

    @Test
    void goingUpTheCapChangesBeforeTheLabel() throws Exception {
        cached = npp("5", 1, Profile.ECO, 120, PowerState.ActiveEco);
        cachedNode.getMetadata().getLabels().put("joulie.io/power-profile", "eco");
        server.expect().patch().withPath(NPP_PATH + APPLY).andReturn(200, npp("6", 2, Profile.PERFORMANCE, 5000, PowerState.ActiveEco)).once();
        server.expect().patch().withPath(NPP_PATH + "/status" + APPLY).andReturn(200, npp("7", 2, Profile.PERFORMANCE, 5000, PowerState.ActivePerformance)).once();
        server.expect().patch().withPath("/api/v1/nodes/n1").andReturn(200, cachedNode).once();

        assertThat(actuator.apply(new NodeAssignment("n1", PowerState.ActivePerformance, SINCE, "selected for performance by x",
                Profile.PERFORMANCE, NodePowerProfileSpec.CpuPower.watts(5000), null, "static_partition"))).isTrue();

        assertThat(requests()).extracting(r -> r.getMethod() + " " + r.getPath())
                .containsExactly("PATCH " + NPP_PATH + APPLY, "PATCH " + NPP_PATH + "/status" + APPLY, "PATCH /api/v1/nodes/n1");
    }

    @Test
    void aCreateThatFindsTheObjectAlreadyThereLeavesTheDecisionToAFreshView() throws Exception {
        cached = null;
        cachedNode.getMetadata().getLabels().put("joulie.io/power-profile", "eco");
        server.expect().post().withPath("/apis/joulie.io/v1alpha1/nodepowerprofiles")
                .andReturn(409, "{\"kind\":\"Status\",\"code\":409,\"reason\":\"AlreadyExists\"}").once();

        assertThatThrownBy(() -> actuator.apply(eco())).isInstanceOf(KubernetesActuator.StaleDecision.class)
                .hasMessageContaining("exists already");

        assertThat(requests()).extracting(r -> r.getMethod() + " " + r.getPath())
                .containsExactly("POST /apis/joulie.io/v1alpha1/nodepowerprofiles");
        assertThat(registry.get("joulie.errors").tag("kind", "conflict").counter().count()).isEqualTo(1);
    }

    /** Another replica (or this one, in a write the cache has not seen) moved the node on: no blind overwrite. */
    @Test
    void aConflictWithAnObjectThatMovedOnIsNotOverwritten() throws Exception {
        cached = npp("5", 1, Profile.PERFORMANCE, 5000, PowerState.DrainingPerformance);
        cachedNode.getMetadata().getLabels().put("joulie.io/power-profile", "eco");
        server.expect().patch().withPath("/api/v1/nodes/n1").andReturn(200, cachedNode).once();
        server.expect().patch().withPath(NPP_PATH + APPLY).andReturn(409, "{\"kind\":\"Status\",\"code\":409,\"reason\":\"Conflict\"}").once();
        NodePowerProfile movedOn = npp("9", 3, Profile.PERFORMANCE, 5000, PowerState.ActivePerformance);
        server.expect().get().withPath(NPP_PATH).andReturn(200, movedOn).once();

        assertThatThrownBy(() -> actuator.apply(eco())).isInstanceOf(KubernetesActuator.StaleDecision.class)
                .hasMessageContaining("moved on").hasMessageContaining("now performance ActivePerformance");

        assertThat(requests()).extracting(r -> r.getMethod() + " " + r.getPath())
                .containsExactly("PATCH /api/v1/nodes/n1", "PATCH " + NPP_PATH + APPLY, "GET " + NPP_PATH);
    }

    @Test
    void aConflictIsRetriedAgainstAFreshRead() throws Exception {
        cached = npp("5", 1, Profile.PERFORMANCE, 5000, PowerState.ActivePerformance);
        cachedNode.getMetadata().getLabels().put("joulie.io/power-profile", "eco");
        server.expect().patch().withPath("/api/v1/nodes/n1").andReturn(200, cachedNode).once();
        server.expect().patch().withPath(NPP_PATH + APPLY).andReturn(409, "{\"kind\":\"Status\",\"code\":409,\"reason\":\"Conflict\"}").once();
        server.expect().get().withPath(NPP_PATH).andReturn(200, npp("9", 3, Profile.PERFORMANCE, 5000, PowerState.ActivePerformance)).once();
        server.expect().patch().withPath(NPP_PATH + APPLY).andReturn(200, npp("10", 4, Profile.ECO, 120, PowerState.ActivePerformance)).once();
        server.expect().patch().withPath(NPP_PATH + "/status" + APPLY).andReturn(200, npp("11", 4, Profile.ECO, 120, PowerState.ActiveEco)).once();

        assertThat(actuator.apply(eco())).isTrue();

        List<RecordedRequest> requests = requests();
        // lowering the cap: the label is sent even though the cache shows it already
        assertThat(requests).extracting(r -> r.getMethod() + " " + r.getPath())
                .containsExactly("PATCH /api/v1/nodes/n1", "PATCH " + NPP_PATH + APPLY, "GET " + NPP_PATH, "PATCH " + NPP_PATH + APPLY,
                        "PATCH " + NPP_PATH + "/status" + APPLY);
        assertThat(requests.get(3).getBody().readUtf8()).contains("\"resourceVersion\":\"9\"").contains("\"profile\":\"eco\"");
        assertThat(requests.get(4).getBody().readUtf8()).contains("\"observedGeneration\":4");
        assertThat(registry.get("joulie.errors").tag("kind", "conflict").counter().count()).isEqualTo(1);
    }

    @Test
    void persistentConflictsGiveUpAfterThreeAttempts() throws Exception {
        cached = npp("5", 1, Profile.PERFORMANCE, 5000, PowerState.ActivePerformance);
        cachedNode.getMetadata().getLabels().put("joulie.io/power-profile", "eco");
        server.expect().patch().withPath("/api/v1/nodes/n1").andReturn(200, cachedNode).once();
        server.expect().patch().withPath(NPP_PATH + APPLY).andReturn(409, "{\"kind\":\"Status\",\"code\":409}").times(3);
        server.expect().get().withPath(NPP_PATH).andReturn(200, npp("9", 3, Profile.PERFORMANCE, 5000, PowerState.ActivePerformance)).times(2);

        assertThatThrownBy(() -> actuator.apply(eco())).hasMessageContaining("409");
        assertThat(requests()).extracting(RecordedRequest::getMethod).containsExactly("PATCH", "PATCH", "GET", "PATCH", "GET", "PATCH");
    }

    @Test
    void nothingIsWrittenWhenTheClusterAlreadyMatches() throws Exception {
        cached = npp("5", 1, Profile.ECO, 120, PowerState.ActiveEco);
        cached.setStatus(KubernetesActuator.status(eco(), 1L, 0));
        cachedNode.getMetadata().getLabels().put("joulie.io/power-profile", "eco");

        assertThat(actuator.apply(eco())).isFalse();
        assertThat(requests()).isEmpty();
    }

    @Test
    void aNodeWhoseNameCollidesWithAnotherNodesProfileIsRefused() throws Exception {
        cached = npp("5", 1, Profile.ECO, 120, PowerState.ActiveEco);
        cached.setSpec(new NodePowerProfileSpec("N1", Profile.ECO, null, null));

        assertThatThrownBy(() -> actuator.apply(eco())).hasMessageContaining("belongs to node N1")
                .hasMessageContaining("collide");
        assertThat(requests()).isEmpty();
    }

    @Test
    void aProfileLeftByAnEarlierNodeOfTheSameNameIsReplaced() throws Exception {
        cached = npp("5", 1, Profile.ECO, 120, PowerState.ActiveEco);
        cached.getMetadata().setOwnerReferences(List.of(new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder()
                .withApiVersion("v1").withKind("Node").withName("n1").withUid("uid-of-the-old-n1").build()));
        cachedNode.getMetadata().getLabels().put("joulie.io/power-profile", "eco");
        server.expect().delete().withPath(NPP_PATH).andReturn(200, cached).once();
        server.expect().post().withPath("/apis/joulie.io/v1alpha1/nodepowerprofiles")
                .andReturn(201, npp("9", 1, Profile.ECO, 120, PowerState.ActiveEco)).once();
        server.expect().patch().withPath(NPP_PATH + "/status" + APPLY).andReturn(200, npp("10", 1, Profile.ECO, 120, PowerState.ActiveEco)).once();

        // decided on a view that showed no profile of this node (the earlier node's is not read as its state)
        assertThat(actuator.apply(ecoOn(new NodeAssignment.Basis(null, "eco")))).isTrue();

        List<RecordedRequest> requests = requests();
        assertThat(requests).extracting(r -> r.getMethod() + " " + r.getPath()).containsExactly("DELETE " + NPP_PATH,
                "POST /apis/joulie.io/v1alpha1/nodepowerprofiles", "PATCH " + NPP_PATH + "/status" + APPLY);
        assertThat(requests.get(1).getBody().readUtf8()).contains("\"uid\":\"uid-n1\"");
    }

    @Test
    void releaseRemovesTheLabelThenTheProfile() throws Exception {
        cached = npp("5", 1, Profile.ECO, 120, PowerState.ActiveEco);
        server.expect().patch().withPath("/api/v1/nodes/n1").andReturn(200, cachedNode).once();
        server.expect().delete().withPath(NPP_PATH).andReturn(200, cached).once();

        assertThat(actuator.release("n1")).isTrue();

        List<RecordedRequest> requests = requests();
        assertThat(requests).extracting(r -> r.getMethod() + " " + r.getPath())
                .containsExactly("PATCH /api/v1/nodes/n1", "DELETE " + NPP_PATH);
        assertThat(requests.get(0).getBody().readUtf8())
                .isEqualTo("[{\"op\":\"test\",\"path\":\"/metadata/labels/joulie.io~1power-profile\",\"value\":\"performance\"},"
                        + "{\"op\":\"remove\",\"path\":\"/metadata/labels/joulie.io~1power-profile\"}]");
        assertThat(requests.get(1).getBody().readUtf8()).as("the delete holds only for the version the cache saw")
                .contains("\"preconditions\":{\"resourceVersion\":\"5\"}");
    }

    @Test
    void aLabelPatchTheServerRefusesBecauseTheLabelMovedOnIsAStaleDecisionNotAFailure() throws Exception {
        cached = npp("5", 1, Profile.PERFORMANCE, 5000, PowerState.ActivePerformance);
        server.expect().patch().withPath("/api/v1/nodes/n1").andReturn(422, "{\"kind\":\"Status\",\"code\":422,"
                + "\"message\":\"the server rejected our request due to an error in our request\"}").once();

        assertThatThrownBy(() -> actuator.apply(eco())).isInstanceOf(KubernetesActuator.StaleDecision.class)
                .hasMessageContaining("no longer performance");
        assertThat(requests()).as("nothing written after the refused label").extracting(r -> r.getMethod() + " " + r.getPath())
                .containsExactly("PATCH /api/v1/nodes/n1");
    }

    @Test
    void aDecisionMadeOnAViewTheCacheNoLongerShowsIsNotWritten() throws Exception {
        cached = npp("6", 2, Profile.PERFORMANCE, 5000, PowerState.DrainingPerformance); // a rescue came in meanwhile
        NodeAssignment onAnOlderView = ecoOn(new NodeAssignment.Basis("5", "eco"));

        assertThatThrownBy(() -> actuator.apply(onAnOlderView)).isInstanceOf(KubernetesActuator.StaleDecision.class)
                .hasMessageContaining("version 5").hasMessageContaining("now shows 6");
        assertThat(requests()).as("no request at all").isEmpty();
    }

    @Test
    void aDecisionWhoseBasisTheCacheStillShowsIsWritten() throws Exception {
        cached = npp("5", 1, Profile.PERFORMANCE, 5000, PowerState.ActivePerformance);
        expectTheWritesOfEco();

        assertThat(actuator.apply(ecoOn(new NodeAssignment.Basis("5", "performance")))).isTrue();
        assertThat(requests()).hasSize(3);
    }

    static NodeAssignment up(String label, CapStatus cap) {
        return new NodeAssignment("n1", PowerState.ActivePerformance, SINCE, "selected for performance by x", Profile.PERFORMANCE,
                NodePowerProfileSpec.CpuPower.watts(5000), null, "static_partition", label, cap, List.of());
    }

    @Test
    void goingUpTheLabelWaitsForTheAgentWhileTheCapAndTheStatusAreWritten() throws Exception {
        cached = npp("5", 1, Profile.ECO, 120, PowerState.ActiveEco);
        cachedNode.getMetadata().getLabels().put("joulie.io/power-profile", "eco");
        server.expect().patch().withPath(NPP_PATH + APPLY).andReturn(200, npp("6", 2, Profile.PERFORMANCE, 5000, PowerState.ActiveEco)).once();
        server.expect().patch().withPath(NPP_PATH + "/status" + APPLY).andReturn(200, npp("7", 2, Profile.PERFORMANCE, 5000, PowerState.ActivePerformance)).once();

        assertThat(actuator.apply(up("eco", new CapStatus(CapConfirmation.Waiting,
                "waiting for the agent to apply the performance cap")))).isTrue();

        List<RecordedRequest> requests = requests();
        assertThat(requests).extracting(r -> r.getMethod() + " " + r.getPath())
                .as("no label patch: the node keeps eco until its agent confirms")
                .containsExactly("PATCH " + NPP_PATH + APPLY, "PATCH " + NPP_PATH + "/status" + APPLY);
        String status = requests.get(1).getBody().readUtf8();
        assertThat(status).contains("\"agent\":\"Waiting\",\"agentMessage\":\"waiting for the agent to apply the performance cap\"")
                .as("the operator applies its own fields only: the agent's answer is the agent's").doesNotContain("applied");
    }

    @Test
    void aRescueRaisesTheCapBeforeItTouchesTheLabel() throws Exception {
        cached = npp("5", 1, Profile.ECO, 120, PowerState.ActiveEco);
        cachedNode.getMetadata().getLabels().put("joulie.io/power-profile", "eco");
        server.expect().patch().withPath(NPP_PATH + APPLY).andReturn(200, npp("6", 2, Profile.PERFORMANCE, 5000, PowerState.ActiveEco)).once();
        server.expect().patch().withPath(NPP_PATH + "/status" + APPLY).andReturn(200, npp("7", 2, Profile.PERFORMANCE, 5000, PowerState.DrainingPerformance)).once();
        server.expect().patch().withPath("/api/v1/nodes/n1").andReturn(200, cachedNode).once();

        assertThat(actuator.apply(new NodeAssignment("n1", PowerState.DrainingPerformance, SINCE, "rescued", Profile.PERFORMANCE,
                NodePowerProfileSpec.CpuPower.watts(5000), null, "static_partition"))).isTrue();

        assertThat(requests()).extracting(r -> r.getMethod() + " " + r.getPath())
                .containsExactly("PATCH " + NPP_PATH + APPLY, "PATCH " + NPP_PATH + "/status" + APPLY, "PATCH /api/v1/nodes/n1");
    }

    @Test
    void noFurtherRequestIsSentOnceTheLeaseIsLost() throws Exception {
        cached = npp("5", 1, Profile.PERFORMANCE, 5000, PowerState.ActivePerformance);
        cachedNode.getMetadata().getLabels().put("joulie.io/power-profile", "performance");
        server.expect().patch().withPath("/api/v1/nodes/n1").andReturn(200, cachedNode).once();
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        // the Lease is held for the label patch and lost before the spec update
        KubernetesActuator fenced = new KubernetesActuator(client, viewOf(), new PlannerMetrics(registry),
                () -> asked.incrementAndGet() == 1);
        try {
            assertThatThrownBy(() -> fenced.apply(eco())).isInstanceOf(LeadershipLost.class);
        } finally {
            fenced.close();
        }

        assertThat(requests()).extracting(r -> r.getMethod() + " " + r.getPath()).containsExactly("PATCH /api/v1/nodes/n1");
    }
}
