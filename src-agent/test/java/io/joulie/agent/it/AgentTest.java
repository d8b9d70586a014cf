package io.joulie.agent.it;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.joulie.api.v1alpha1.ControlResult;
import io.joulie.api.v1alpha1.NodeHardware;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileSpec;
import io.joulie.api.v1alpha1.NodePowerProfileStatus;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec;
import io.joulie.testkit.PrometheusText;
import io.joulie.testkit.ServerSideApplyDispatcher;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static io.joulie.agent.it.AgentTestProfile.HOST;
import static io.joulie.agent.it.AgentTestProfile.NODE;
import static io.joulie.agent.it.AgentTestProfile.NVML;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The real agent on the mock API server and a fake sysfs tree (2 packages, long_term 200 W each at start), on the
 * wall clock: what needs the API server (the status subresource and the profile the agent creates, the Node labels,
 * metrics and probes on the management port) and the path from a watch event to the limit files within a second.
 * The reconcile logic itself is tested without a server or waiting in {@code runtime.NodeReconcilerTest}.
 */
@QuarkusTest
@WithKubernetesTestServer(setup = ServerSideApplyDispatcher.Setup.class)
@TestProfile(AgentTestProfile.class)
class AgentTest {
    static final Duration WAIT = Duration.ofSeconds(10);
    static final Duration SECOND = Duration.ofSeconds(1);
    static final String ORIGINAL = "200000000";
    static final String NPP_NAME = "node-worker-a";

    @Inject
    KubernetesClient client;

    @BeforeEach
    void reset() throws IOException {
        for (String crd : List.of("10-crd-nodepowerprofiles.joulie.io.yml", "10-crd-telemetryprofiles.joulie.io.yml",
                "10-crd-nodehardwares.joulie.io.yml")) {
            Path file = Path.of(System.getProperty("repository.root"), "kubernetes", crd);
            CustomResourceDefinition def = client.apiextensions().v1().customResourceDefinitions().load(file.toFile()).item();
            client.resource(def).createOr(NonDeletingOperation::update);
        }
        if (client.nodes().withName(NODE).get() == null) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).addToLabels("joulie.io/managed", "true")
                    .endMetadata().build()).create();
        }
        client.resources(NodePowerProfile.class).delete();
        // the agent restores the limits found at start once the profile is gone, and reports that
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(limit(0)).isEqualTo(ORIGINAL);
            assertThat(limit(1)).isEqualTo(ORIGINAL);
            assertThat(NVML.limitMw(0)).isEqualTo(700_000);
            assertThat(NVML.limitMw(1)).isEqualTo(350_000);
        });
        client.resources(TelemetryProfile.class).delete();
        await().atMost(WAIT).until(() -> client.resources(TelemetryProfile.class).list().getItems().isEmpty());
    }

    static String limit(int pkg) {
        return HOST.limit(pkg);
    }

    NodePowerProfile npp(Profile profile, Double cap) {
        return npp(profile, cap == null ? null : NodePowerProfileSpec.CpuPower.watts(cap), null);
    }

    NodePowerProfile npp(Profile profile, NodePowerProfileSpec.CpuPower cpu, NodePowerProfileSpec.GpuPower gpu) {
        NodePowerProfile npp = new NodePowerProfile();
        npp.setMetadata(new ObjectMetaBuilder().withName(NPP_NAME).build());
        npp.setSpec(new NodePowerProfileSpec(NODE, profile, cpu, gpu, null));
        return npp;
    }

    NodePowerProfile create(Profile profile, Double cap) {
        return client.resource(npp(profile, cap)).create();
    }

    NodePowerProfile update(Profile profile, Double cap) {
        NodePowerProfile current = client.resources(NodePowerProfile.class).withName(NPP_NAME).get();
        current.setSpec(npp(profile, cap).getSpec());
        return client.resource(current).update();
    }

    NodePowerProfileStatus.Applied applied() {
        NodePowerProfile npp = client.resources(NodePowerProfile.class).withName(NPP_NAME).get();
        return npp == null || npp.getStatus() == null ? null : npp.getStatus().applied();
    }

    NodePowerProfileStatus.Gpu gpuStatus() {
        NodePowerProfileStatus.Applied applied = applied();
        return applied == null ? null : applied.gpu();
    }

    NodePowerProfileStatus.Cpu cpuStatus() {
        NodePowerProfileStatus.Applied applied = applied();
        return applied == null ? null : applied.cpu();
    }

    @Test
    void appliesTheProfileWithinASecondAndFollowsChanges() {
        create(Profile.ECO, 240.0);
        await().atMost(SECOND).untilAsserted(() -> {
            assertThat(limit(0)).isEqualTo("120000000");
            assertThat(limit(1)).isEqualTo("120000000");
        });

        update(Profile.PERFORMANCE, 300.0);
        await().atMost(SECOND).untilAsserted(() -> {
            assertThat(limit(0)).isEqualTo("150000000");
            assertThat(limit(1)).isEqualTo("150000000");
        });
    }

    /**
     * A profile value this agent does not know (a newer operator or CRD): the watch keeps working, the node's status
     * names the problem, the limits stay, and the next valid profile is applied at once.
     */
    @Test
    void anUnknownProfileValueIsReportedAndTheWatchGoesOn() {
        create(Profile.ECO, 240.0);
        await().atMost(SECOND).untilAsserted(() -> assertThat(limit(0)).isEqualTo("120000000"));
        GenericKubernetesResource turbo = client.genericKubernetesResources("joulie.io/v1alpha1", "NodePowerProfile")
                .withName(NPP_NAME).get();
        turbo.setAdditionalProperty("spec", java.util.Map.of("nodeName", NODE, "profile", "turbo",
                "cpu", java.util.Map.of("packagePowerCapWatts", 90)));
        client.genericKubernetesResources("joulie.io/v1alpha1", "NodePowerProfile").resource(turbo).update();
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(cpuStatus().result()).isEqualTo(ControlResult.BLOCKED);
            assertThat(cpuStatus().message()).isEqualTo("NodePowerProfile " + NPP_NAME + ": spec.profile is missing or is not a "
                    + "profile this agent knows (performance, eco); the previous limit stays");
        });
        assertThat(limit(0)).isEqualTo("120000000");

        update(Profile.PERFORMANCE, 300.0);
        await().atMost(SECOND).untilAsserted(() -> assertThat(limit(0)).isEqualTo("150000000"));
    }

    @Test
    void answersInTheNodePowerProfileStatusAndWritesNoTelemetryProfile() {
        NodePowerProfile created = create(Profile.ECO, 240.0);

        await().atMost(WAIT).untilAsserted(() -> {
            NodePowerProfileStatus.Applied applied = applied();
            assertThat(applied).isNotNull();
            assertThat(applied.generation()).isEqualTo(created.getMetadata().getGeneration());
            assertThat(applied.time()).isNotBlank();
            assertThat(applied.cpu().backend()).isEqualTo("powercap");
            assertThat(applied.cpu().result()).isEqualTo(ControlResult.APPLIED);
            assertThat(applied.cpu().watts()).isEqualTo(240.0);
            assertThat(applied.cpu().packages()).extracting(NodePowerProfileStatus.Device::watts).containsExactly(120.0, 120.0);
        });
        NodePowerProfile npp = client.resources(NodePowerProfile.class).withName(NPP_NAME).get();
        assertThat(npp.getStatus().state()).as("the operator's fields are not the agent's").isNull();
        assertThat(client.resources(TelemetryProfile.class).list().getItems()).as("routing only, written by people").isEmpty();
    }

    List<io.fabric8.kubernetes.api.model.Event> nodeEvents() {
        return client.v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> "Node".equals(e.getInvolvedObject().getKind()) && NODE.equals(e.getInvolvedObject().getName()))
                .sorted(java.util.Comparator.comparing(e -> e.getMetadata().getCreationTimestamp() + e.getMetadata().getName()))
                .toList();
    }

    @Test
    void recordsAnEventOnTheNodeWhenWhatItAppliedChangesAndNoneWhileItStays() throws InterruptedException {
        client.v1().events().inNamespace("default").delete();
        await().atMost(WAIT).until(() -> nodeEvents().isEmpty());

        create(Profile.ECO, 240.0);
        await().atMost(WAIT).untilAsserted(() -> assertThat(nodeEvents()).singleElement().satisfies(e -> {
            assertThat(e.getReason()).isEqualTo("CapApplied");
            assertThat(e.getType()).isEqualTo("Normal");
            assertThat(e.getMessage()).startsWith("powercap: ");
            assertThat(e.getInvolvedObject().getUid()).as("the node's name, as the kubelet's Events have it").isEqualTo(NODE);
            assertThat(e.getSource().getComponent()).isEqualTo("joulie-agent");
            assertThat(e.getSource().getHost()).isEqualTo(NODE);
        }));
        // converged: periodic passes find the same outcome and record nothing more
        Thread.sleep(2_500);
        assertThat(nodeEvents()).hasSize(1);

        update(Profile.PERFORMANCE, 300.0);
        await().atMost(WAIT).untilAsserted(() -> assertThat(nodeEvents()).extracting(io.fabric8.kubernetes.api.model.Event::getReason)
                .containsExactly("CapApplied", "CapApplied"));
    }

    @Test
    void aNodeScopedProfileWrittenByHandRoutesButGetsNoStatus() {
        TelemetryProfile mine = new TelemetryProfile();
        mine.setMetadata(new ObjectMetaBuilder().withName("my-routing").build());
        mine.setSpec(new TelemetryProfileSpec(new TelemetryProfileSpec.Target(TelemetryProfileSpec.Scope.NODE, NODE), null, null));
        client.resource(mine).create();

        create(Profile.ECO, 240.0);

        await().atMost(WAIT).untilAsserted(() -> assertThat(cpuStatus()).isNotNull()
                .satisfies(cpu -> assertThat(cpu.result()).isEqualTo(ControlResult.APPLIED)));
        assertThat(client.resources(TelemetryProfile.class).withName("my-routing").get().getSpec()).isEqualTo(mine.getSpec());
        assertThat(client.resources(TelemetryProfile.class).list().getItems()).hasSize(1);
    }

    @Test
    void labelsTheNodeWithItsCapabilitiesAndExposesThemAsMetrics() {
        await().atMost(WAIT).untilAsserted(() -> assertThat(client.nodes().withName(NODE).get().getMetadata().getLabels())
                .containsEntry("feature.joulie.io/rapl", "true")
                .containsEntry("feature.joulie.io/rapl-writable", "true")
                .containsEntry("feature.joulie.io/cpufreq", "true")
                .containsEntry("feature.joulie.io/cpu-vendor", "intel")
                .containsEntry("feature.joulie.io/cgroup", "v2")
                .containsEntry("joulie.io/managed", "true"));
        assertThat(metric("joulie_agent_capability", "feature=\"rapl-writable\"", "value=\"true\"")).isEqualTo(1.0);
    }

    @Test
    void exposesControlMetrics() {
        create(Profile.ECO, 240.0);
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(metric("joulie_agent_cap_per_package_watts", "node=\"" + NODE + "\"")).isEqualTo(120.0);
            assertThat(metric("joulie_agent_backend", "backend=\"powercap\"")).isEqualTo(1.0);
            assertThat(metric("joulie_agent_backend", "backend=\"http\"")).isEqualTo(0.0);
            assertThat(metric("joulie_agent_actions_total", "kind=\"apply\"", "result=\"applied\"")).isGreaterThan(0);
            assertThat(metric("joulie_agent_apply_duration_seconds_count", "node=\"" + NODE + "\"")).isGreaterThan(0);
        });
        given().port(managementPort()).get("/q/health/ready").then().statusCode(200);
        given().port(managementPort()).get("/q/health/live").then().statusCode(200);
    }

    @Test
    void capsTheGpusThroughNvmlWithinASecondBesideAPercentCpuCapAndReportsBoth() {
        client.resource(npp(Profile.ECO, NodePowerProfileSpec.CpuPower.percent(60), NodePowerProfileSpec.GpuPower.percent(60))).create();
        await().atMost(SECOND).untilAsserted(() -> {
            assertThat(NVML.limitMw(0)).isEqualTo(420_000);
            assertThat(NVML.limitMw(1)).isEqualTo(210_000);
            assertThat(limit(0)).isEqualTo("150000000");
            assertThat(limit(1)).isEqualTo("150000000");
        });
        await().atMost(WAIT).untilAsserted(() -> {
            NodePowerProfileStatus.Gpu gpu = gpuStatus();
            assertThat(gpu).isNotNull();
            assertThat(gpu.backend()).isEqualTo("nvml");
            assertThat(gpu.result()).isEqualTo(ControlResult.APPLIED);
            assertThat(gpu.boards()).extracting(NodePowerProfileStatus.Device::watts).containsExactly(420.0, 210.0);
            assertThat(cpuStatus().watts()).isEqualTo(300.0);
            assertThat(metric("joulie_agent_gpu_cap_watts", "node=\"" + NODE + "\"", "gpu=\"0\"")).isEqualTo(420.0);
            assertThat(metric("joulie_agent_gpu_backend", "backend=\"nvml\"")).isEqualTo(1.0);
        });
    }

    @Test
    void publishesTheNodesHardwareOwnedByItsNode() {
        create(Profile.ECO, 240.0);
        await().atMost(WAIT).untilAsserted(() -> {
            NodeHardware nhw = client.resources(NodeHardware.class).withName(NPP_NAME).get();
            assertThat(nhw).isNotNull();
            assertThat(nhw.getSpec().nodeName()).isEqualTo(NODE);
            assertThat(nhw.getStatus()).isNotNull();
            assertThat(nhw.getStatus().cpu().control()).isEqualTo(NodeHardwareStatus.Control.POWERCAP);
            assertThat(nhw.getStatus().cpu().packages()).extracting(NodeHardwareStatus.CpuPackage::maxWatts).containsExactly(250.0, 250.0);
            assertThat(nhw.getStatus().gpu().control()).isEqualTo(NodeHardwareStatus.Control.NVML);
            assertThat(nhw.getStatus().gpu().count()).isEqualTo(2);
            assertThat(nhw.getStatus().gpu().devices()).extracting(NodeHardwareStatus.GpuBoard::maxWatts).containsExactly(700.0, 350.0);
            assertThat(nhw.getStatus().updatedAt()).isNotBlank();
            assertThat(nhw.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
                assertThat(o.getKind()).isEqualTo("Node");
                assertThat(o.getName()).isEqualTo(NODE);
            });
        });
    }

    /** Sum of the samples of a Prometheus metric whose labels include all {@code labels}. */
    static double metric(String name, String... labels) {
        return PrometheusText.metric(managementPort(), name, labels);
    }

    static int managementPort() {
        return org.eclipse.microprofile.config.ConfigProvider.getConfig().getValue("quarkus.management.test-port", Integer.class);
    }
}
