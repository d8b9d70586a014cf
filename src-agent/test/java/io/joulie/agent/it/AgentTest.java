package io.joulie.agent.it;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.joulie.testkit.FakeHost;
import io.joulie.testkit.PrometheusText;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileSpec;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec;
import io.joulie.api.v1alpha1.TelemetryProfileStatus.ControlResult;
import io.joulie.api.v1alpha1.TelemetryProfileStatus.Result;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.joulie.agent.it.AgentTestProfile.NODE;
import static io.joulie.agent.it.AgentTestProfile.HOST;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The real agent on the mock API server and a fake sysfs tree (2 packages, long_term 200 W each at start). */
@QuarkusTest
@WithKubernetesTestServer
@TestProfile(AgentTestProfile.class)
class AgentTest {
    static final Duration WAIT = Duration.ofSeconds(10);
    static final Duration SECOND = Duration.ofSeconds(1);
    static final String ORIGINAL = "200000000";
    static final String TP_NAME = "node-worker-a";
    static final String NPP_NAME = "node-worker-a";

    @Inject
    KubernetesClient client;

    @BeforeEach
    void reset() throws IOException {
        for (String crd : List.of("10-crd-nodepowerprofiles.joulie.io.yml", "10-crd-telemetryprofiles.joulie.io.yml")) {
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
        });
        await().atMost(WAIT).until(() -> client.resources(TelemetryProfile.class).list().getItems().stream()
                .allMatch(tp -> tp.getStatus() == null || tp.getStatus().control().cpu().message().startsWith("NodePowerProfile deleted")));
        client.resources(TelemetryProfile.class).delete();
        await().atMost(WAIT).until(() -> client.resources(TelemetryProfile.class).list().getItems().isEmpty());
    }

    static String limit(int pkg) {
        return HOST.limit(pkg);
    }

    NodePowerProfile npp(Profile profile, Double cap) {
        NodePowerProfile npp = new NodePowerProfile();
        npp.setMetadata(new ObjectMetaBuilder().withName(NPP_NAME).build());
        npp.setSpec(new NodePowerProfileSpec(NODE, profile, cap == null ? null : new NodePowerProfileSpec.CpuPower(cap), null));
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

    ControlResult cpuStatus() {
        TelemetryProfile tp = client.resources(TelemetryProfile.class).withName(TP_NAME).get();
        return tp == null || tp.getStatus() == null || tp.getStatus().control() == null ? null : tp.getStatus().control().cpu();
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

    @Test
    void createsTheNodeScopedTelemetryProfileAndWritesTheControlStatus() {
        create(Profile.ECO, 240.0);

        await().atMost(WAIT).untilAsserted(() -> {
            ControlResult cpu = cpuStatus();
            assertThat(cpu).isNotNull();
            assertThat(cpu.backend()).isEqualTo("powercap");
            assertThat(cpu.result()).isEqualTo(Result.APPLIED);
            assertThat(cpu.observed()).containsEntry("capWattsPerPackage", 120.0).containsEntry("capWatts", 240.0);
            assertThat(cpu.updatedAt()).isNotBlank();
        });
        TelemetryProfile tp = client.resources(TelemetryProfile.class).withName(TP_NAME).get();
        assertThat(tp.getSpec().target().scope()).isEqualTo(TelemetryProfileSpec.Scope.NODE);
        assertThat(tp.getSpec().target().nodeName()).isEqualTo(NODE);
        assertThat(tp.getSpec().controls()).isNull();
        // goes with its Node (garbage collection)
        assertThat(tp.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
            assertThat(o.getKind()).isEqualTo("Node");
            assertThat(o.getName()).isEqualTo(NODE);
            assertThat(o.getUid()).isEqualTo(client.nodes().withName(NODE).get().getMetadata().getUid());
        });
    }

    /**
     * The energy counters advance between periodic reconciles, so every reconcile reads a new package power:
     * the status must still not be rewritten, because packagePowerWatts is left out of the comparison.
     */
    @Test
    void anUnchangedStatusIsNotRewrittenByPeriodicReconciles() {
        create(Profile.ECO, 240.0);
        await().atMost(WAIT).until(() -> cpuStatus() != null && cpuStatus().result() == Result.APPLIED);
        // let the first write settle: at least one full periodic reconcile after it
        awaitPeriodicReconciles(2);
        String version = client.resources(TelemetryProfile.class).withName(TP_NAME).get().getMetadata().getResourceVersion();

        List<Double> readings = new java.util.ArrayList<>();
        double previous = metric("joulie_agent_package_power_watts", "node=\"" + NODE + "\"");
        for (int i = 1; i <= 3; i++) {
            HOST.addEnergy(i * 37_000_000L);
            double before = previous;
            await().atMost(WAIT).until(() -> {
                double now = metric("joulie_agent_package_power_watts", "node=\"" + NODE + "\"");
                return now > 0 && now != before;
            });
            previous = metric("joulie_agent_package_power_watts", "node=\"" + NODE + "\"");
            readings.add(previous);
        }

        assertThat(readings).doesNotHaveDuplicates().allMatch(w -> w > 0);
        assertThat(client.resources(TelemetryProfile.class).withName(TP_NAME).get().getMetadata().getResourceVersion())
                .isEqualTo(version);
    }

    /** Waits until the last-periodic-reconcile timestamp (whole seconds, 1 s interval) has moved {@code n} seconds on. */
    static void awaitPeriodicReconciles(int n) {
        double start = metric("joulie_agent_last_reconcile_timestamp_seconds");
        await().atMost(WAIT).until(() -> metric("joulie_agent_last_reconcile_timestamp_seconds") >= start + n);
    }

    @Test
    void movingCpuControlFromHostToNoneRestoresTheOriginalLimits() {
        create(Profile.ECO, 240.0);
        await().atMost(SECOND).until(() -> limit(0).equals("120000000") && limit(1).equals("120000000"));

        TelemetryProfile none = new TelemetryProfile();
        none.setMetadata(new ObjectMetaBuilder().withName("cluster-none").build());
        none.setSpec(new TelemetryProfileSpec(new TelemetryProfileSpec.Target(TelemetryProfileSpec.Scope.CLUSTER, null), null,
                new TelemetryProfileSpec.Controls(new TelemetryProfileSpec.CpuControl(TelemetryProfileSpec.ControlType.NONE,
                        null), null)));
        client.resource(none).create();

        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(limit(0)).isEqualTo(ORIGINAL);
            assertThat(limit(1)).isEqualTo(ORIGINAL);
            ControlResult cpu = cpuStatus();
            assertThat(cpu).isNotNull();
            assertThat(cpu.backend()).isEqualTo("none");
        });
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(metric("joulie_agent_actions_total", "kind=\"restore\"", "node=\"" + NODE + "\"")).isGreaterThan(0));
    }

    @Test
    void writesIntoAnExistingNodeScopedProfile() {
        TelemetryProfile mine = new TelemetryProfile();
        mine.setMetadata(new ObjectMetaBuilder().withName("my-routing").build());
        mine.setSpec(new TelemetryProfileSpec(new TelemetryProfileSpec.Target(TelemetryProfileSpec.Scope.NODE, NODE), null, null));
        client.resource(mine).create();

        create(Profile.ECO, 240.0);

        await().atMost(WAIT).untilAsserted(() -> {
            TelemetryProfile tp = client.resources(TelemetryProfile.class).withName("my-routing").get();
            assertThat(tp.getStatus()).isNotNull();
            assertThat(tp.getStatus().control().cpu().result()).isEqualTo(Result.APPLIED);
        });
        assertThat(client.resources(TelemetryProfile.class).withName(TP_NAME).get()).isNull();
    }

    @Test
    void aBadCapIsBlockedAndTheLimitStays() {
        create(Profile.ECO, 240.0);
        await().atMost(SECOND).until(() -> limit(0).equals("120000000"));

        update(Profile.ECO, null);
        await().atMost(WAIT).untilAsserted(() -> {
            ControlResult cpu = cpuStatus();
            assertThat(cpu).isNotNull();
            assertThat(cpu.result()).isEqualTo(Result.BLOCKED);
            assertThat(cpu.message()).contains("spec.cpu.packagePowerCapWatts is missing");
            assertThat(cpu.observed()).containsEntry("capWattsPerPackage", 120.0);
        });

        // the CRD schema would refuse 0 on a real API server; the mock does not validate, the agent must
        update(Profile.ECO, 0.0);
        await().atMost(WAIT).untilAsserted(() -> {
            ControlResult cpu = cpuStatus();
            assertThat(cpu).isNotNull();
            assertThat(cpu.message()).contains("= 0.0 is not a finite number of watts > 0");
        });
        update(Profile.ECO, -5.0);
        await().atMost(WAIT).untilAsserted(() -> {
            ControlResult cpu = cpuStatus();
            assertThat(cpu).isNotNull();
            assertThat(cpu.message()).contains("= -5.0");
        });
        assertThat(cpuStatus().result()).isEqualTo(Result.BLOCKED);
        assertThat(limit(0)).isEqualTo("120000000");
        assertThat(limit(1)).isEqualTo("120000000");
    }

    @Test
    void aLimitChangedBehindItsBackIsPutBackByThePeriodicReconcile() {
        create(Profile.ECO, 240.0);
        await().atMost(SECOND).until(() -> limit(1).equals("120000000"));
        double before = metric("joulie_agent_actions_total", "kind=\"reapply\"");

        FakeHost.write(FakeHost.limitFile(HOST.intelZone(1)), "180000000");

        await().atMost(Duration.ofSeconds(3)).until(() -> limit(1).equals("120000000"));
        assertThat(limit(0)).isEqualTo("120000000");
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(metric("joulie_agent_actions_total", "kind=\"reapply\"", "node=\"" + NODE + "\"")).isGreaterThan(before));
    }

    @Test
    void deletingTheProfileRestoresTheOriginalLimits() {
        create(Profile.ECO, 240.0);
        await().atMost(SECOND).until(() -> limit(0).equals("120000000"));

        client.resources(NodePowerProfile.class).withName(NPP_NAME).delete();

        await().atMost(SECOND).untilAsserted(() -> {
            assertThat(limit(0)).isEqualTo(ORIGINAL);
            assertThat(limit(1)).isEqualTo(ORIGINAL);
        });
        await().atMost(WAIT).untilAsserted(() -> assertThat(cpuStatus().message()).startsWith("NodePowerProfile deleted"));
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
    void aNodeScopedHttpRouteSendsTheCapToTheEndpointInsteadOfTheHost() throws IOException {
        List<String> bodies = new CopyOnWriteArrayList<>();
        List<String> reads = new CopyOnWriteArrayList<>();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> {
            if ("GET".equals(ex.getRequestMethod())) {
                reads.add(ex.getRequestURI().getPath());
                byte[] power = "{\"packagePowerWatts\": 180}".getBytes(StandardCharsets.UTF_8);
                ex.sendResponseHeaders(200, power.length);
                ex.getResponseBody().write(power);
            } else {
                bodies.add(ex.getRequestURI().getPath() + " " + new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                ex.sendResponseHeaders(200, -1);
            }
            ex.close();
        });
        server.start();
        try {
            TelemetryProfile tp = new TelemetryProfile();
            tp.setMetadata(new ObjectMetaBuilder().withName("http-route").build());
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            // the telemetry source of the same profile makes the agent's view of it observable: the periodic
            // reconcile GETs the power from this server only once the agent's watch has the profile
            tp.setSpec(new TelemetryProfileSpec(new TelemetryProfileSpec.Target(TelemetryProfileSpec.Scope.NODE, NODE),
                    new TelemetryProfileSpec.Sources(new TelemetryProfileSpec.Source(TelemetryProfileSpec.SourceType.HTTP,
                            new TelemetryProfileSpec.HttpEndpoint(base + "/power/{node}", 2), null), null, null, null),
                    new TelemetryProfileSpec.Controls(new TelemetryProfileSpec.CpuControl(TelemetryProfileSpec.ControlType.HTTP,
                            new TelemetryProfileSpec.CpuHttpControl(base + "/cap/{node}", 2, null)), null)));
            client.resource(tp).create();
            await().atMost(WAIT).until(() -> reads.contains("/power/" + NODE));
            assertThat(bodies).isEmpty();

            create(Profile.ECO, 240.0);

            await().atMost(SECOND).untilAsserted(() -> assertThat(bodies).singleElement().asString()
                    .startsWith("/cap/" + NODE + " ").contains("\"action\":\"rapl.set_power_cap_watts\"")
                    .contains("\"capWatts\":240.0").contains("\"node\":\"" + NODE + "\""));
            await().atMost(WAIT).untilAsserted(() -> {
                ControlResult cpu = client.resources(TelemetryProfile.class).withName("http-route").get().getStatus().control().cpu();
                assertThat(cpu.backend()).isEqualTo("http");
                assertThat(cpu.result()).isEqualTo(Result.APPLIED);
            });
            assertThat(limit(0)).isEqualTo(ORIGINAL);
        } finally {
            server.stop(0);
        }
    }

    /** Sum of the samples of a Prometheus metric whose labels include all {@code labels}. */
    static double metric(String name, String... labels) {
        return PrometheusText.metric(managementPort(), name, labels);
    }

    static int managementPort() {
        return org.eclipse.microprofile.config.ConfigProvider.getConfig().getValue("quarkus.management.test-port", Integer.class);
    }
}
