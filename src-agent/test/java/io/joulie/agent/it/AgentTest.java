package io.joulie.agent.it;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.joulie.agent.host.FakeHost;
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
import static io.joulie.agent.it.AgentTestProfile.limitFile;
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
        return FakeHost.read(limitFile(pkg)).strip();
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
    }

    @Test
    void anUnchangedStatusIsNotRewrittenByPeriodicReconciles() throws InterruptedException {
        create(Profile.ECO, 240.0);
        await().atMost(WAIT).until(() -> cpuStatus() != null && cpuStatus().result() == Result.APPLIED);
        Thread.sleep(500); // let the write settle
        String version = client.resources(TelemetryProfile.class).withName(TP_NAME).get().getMetadata().getResourceVersion();

        Thread.sleep(2500); // two periodic reconciles at 1 s

        assertThat(client.resources(TelemetryProfile.class).withName(TP_NAME).get().getMetadata().getResourceVersion())
                .isEqualTo(version);
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
            assertThat(cpuStatus().result()).isEqualTo(Result.BLOCKED);
            assertThat(cpuStatus().message()).contains("spec.cpu.packagePowerCapWatts is missing");
            assertThat(cpuStatus().observed()).containsEntry("capWattsPerPackage", 120.0);
        });

        // the CRD schema would refuse 0 on a real API server; the mock does not validate, the agent must
        update(Profile.ECO, 0.0);
        await().atMost(WAIT).untilAsserted(() -> assertThat(cpuStatus().message()).contains("= 0.0 is not a finite number of watts > 0"));
        update(Profile.ECO, -5.0);
        await().atMost(WAIT).untilAsserted(() -> assertThat(cpuStatus().message()).contains("= -5.0"));
        assertThat(cpuStatus().result()).isEqualTo(Result.BLOCKED);
        assertThat(limit(0)).isEqualTo("120000000");
        assertThat(limit(1)).isEqualTo("120000000");
    }

    @Test
    void aLimitChangedBehindItsBackIsPutBackByThePeriodicReconcile() {
        create(Profile.ECO, 240.0);
        await().atMost(SECOND).until(() -> limit(1).equals("120000000"));
        double before = metric("joulie_agent_actions_total", "kind=\"reapply\"");

        FakeHost.write(limitFile(1), "180000000");

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
        given().port(19417).get("/q/health/ready").then().statusCode(200);
        given().port(19417).get("/q/health/live").then().statusCode(200);
    }

    @Test
    void aNodeScopedHttpRouteSendsTheCapToTheEndpointInsteadOfTheHost() throws IOException {
        List<String> bodies = new CopyOnWriteArrayList<>();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> {
            bodies.add(ex.getRequestURI().getPath() + " " + new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        server.start();
        try {
            TelemetryProfile tp = new TelemetryProfile();
            tp.setMetadata(new ObjectMetaBuilder().withName("http-route").build());
            tp.setSpec(new TelemetryProfileSpec(new TelemetryProfileSpec.Target(TelemetryProfileSpec.Scope.NODE, NODE), null,
                    new TelemetryProfileSpec.Controls(new TelemetryProfileSpec.CpuControl(TelemetryProfileSpec.ControlType.HTTP,
                            new TelemetryProfileSpec.CpuHttpControl("http://127.0.0.1:" + server.getAddress().getPort()
                                    + "/cap/{node}", 2, null)), null)));
            client.resource(tp).create();
            await().atMost(WAIT).until(() -> client.resources(TelemetryProfile.class).withName("http-route").get() != null);
            Thread.sleep(300); // the agent's watch sees the route

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
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        } finally {
            server.stop(0);
        }
    }

    /** Sum of the samples of a Prometheus metric whose labels include all {@code labels}. */
    static double metric(String name, String... labels) {
        String body = given().port(19417).get("/q/metrics").then().statusCode(200).extract().asString();
        double sum = 0;
        for (String line : body.split("\n")) {
            if (line.startsWith("#") || !(line.startsWith(name + "{") || line.startsWith(name + " "))) {
                continue;
            }
            boolean all = true;
            for (String l : labels) {
                all &= line.contains(l);
            }
            if (all) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }
}
