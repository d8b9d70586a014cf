package io.joulie.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.testkit.FakeHost;
import io.joulie.testkit.PrometheusText;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The production jars, black-box: an in-process mock API server, the operator and the agent as
 * subprocesses (java -jar quarkus-run.jar), a fake two-package sysfs tree. The operator's plan must reach
 * the agent's limit files, a change of plan must reach them within a second of the NodePowerProfile change,
 * and the agent must restore the original limits when it is stopped (SIGTERM). While both run, every metric the
 * Grafana dashboard and the alerting rules name must be among those the two applications export.
 */
class OperatorAndAgentIT {
    static final String NODE = "e2e-a";
    static final Path REPO = Path.of(System.getProperty("repository.root"));
    static KubernetesMockServer server;
    static KubernetesClient client;
    static FakeHost host;
    static final List<Process> processes = new ArrayList<>();
    static int operatorManagementPort;
    static int agentManagementPort;

    @BeforeAll
    static void start() throws IOException {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), true);
        server.init();
        client = server.createClient();
        for (String crd : List.of("10-crd-nodepowerprofiles.joulie.io.yml", "10-crd-telemetryprofiles.joulie.io.yml")) {
            CustomResourceDefinition def = client.apiextensions().v1().customResourceDefinitions()
                    .load(REPO.resolve("kubernetes").resolve(crd).toFile()).item();
            client.resource(def).create();
        }
        host = FakeHost.intelNode(Files.createTempDirectory("joulie-e2e-host"), 2, 250);
        String api = server.url("/");
        Map<String, String> common = Map.of("QUARKUS_KUBERNETES_CLIENT_API_SERVER_URL", api,
                "QUARKUS_KUBERNETES_CLIENT_TRUST_CERTS", "true", "QUARKUS_KUBERNETES_CLIENT_NAMESPACE", "default");
        Map<String, String> operator = new HashMap<>(common);
        operator.putAll(Map.of("LEADER_ELECTION", "false", "RECONCILE_INTERVAL", "1s", "PERFORMANCE_CAP_WATTS", "440",
                "ECO_CAP_WATTS", "120", "QUARKUS_HTTP_PORT", Integer.toString(freePort()),
                "QUARKUS_MANAGEMENT_PORT", Integer.toString(operatorManagementPort = freePort())));
        launch("operator", REPO.resolve("src/target/quarkus-app/quarkus-run.jar"), operator);
        Map<String, String> agent = new HashMap<>(common);
        agent.putAll(host.agentEnvironment());
        agent.putAll(Map.of("NODE_NAME", NODE, "AGENT_RECONCILE_INTERVAL", "1s",
                "QUARKUS_HTTP_PORT", Integer.toString(freePort()),
                "QUARKUS_MANAGEMENT_PORT", Integer.toString(agentManagementPort = freePort())));
        launch("agent", REPO.resolve("src-agent/target/quarkus-app/quarkus-run.jar"), agent);
    }

    @AfterAll
    static void stop() {
        for (Process p : processes) {
            p.destroy();
        }
        for (Process p : processes) {
            try {
                if (!p.waitFor(15, java.util.concurrent.TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.destroy();
        }
    }

    static void launch(String name, Path jar, Map<String, String> env) throws IOException {
        assertThat(jar).as("packaged " + name + " (run the reactor: ./mvnw verify)").exists();
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        ProcessBuilder pb = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED",
                "--add-opens", "java.base/java.lang=ALL-UNNAMED", "-jar", jar.toString());
        pb.environment().putAll(env);
        pb.redirectErrorStream(true);
        pb.redirectOutput(Path.of("target", name + ".log").toFile());
        processes.add(pb.start());
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static Double cap() {
        NodePowerProfile npp = client.resources(NodePowerProfile.class).withName(JoulieApi.nodePowerProfileName(NODE)).get();
        return npp == null || npp.getSpec().cpu() == null ? null : npp.getSpec().cpu().packagePowerCapWatts();
    }

    static void managedNode(String name) {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name).addToLabels("joulie.io/managed", "true")
                .endMetadata().withNewSpec().endSpec().build()).create();
    }

    /**
     * Scrapes both applications (after a NodePowerProfile was applied, so the per-node and per-action meters
     * exist) and checks every metric name in the dashboard's and the alerts' PromQL against the scrapes. The fake
     * packages consume energy first: the energy counter is registered at the first non-zero reading.
     */
    static void theMonitoringQueriesNameOnlyExportedMetrics() throws Exception {
        for (int pkg = 0; pkg < host.packages(); pkg++) {
            host.energy(pkg, 61_000_000);
        }
        JsonNode dashboard = Monitoring.dashboard();
        JsonNode alerts = Monitoring.alerts();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            Set<String> exported = new HashSet<>(Monitoring.exported(PrometheusText.scrape(operatorManagementPort)));
            exported.addAll(Monitoring.exported(PrometheusText.scrape(agentManagementPort)));
            assertThat(Monitoring.unexported(Monitoring.dashboardQueries(dashboard), exported, Set.of()))
                    .as("dashboard metrics the applications do not export").isEmpty();
            assertThat(Monitoring.unexported(Monitoring.alertQueries(alerts), exported, Monitoring.PROMETHEUS_BUILT_INS))
                    .as("alert metrics the applications do not export").isEmpty();
        });
    }

    @Test
    void theOperatorsPlanReachesTheLimitFilesAChangeWithinASecondAndSigtermRestores() throws Exception {
        managedNode(NODE);
        // one managed node: hp = round(1 x 0.5) = 1, so performance at 440 W: 220 W per package
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            assertThat(cap()).isEqualTo(440.0);
            assertThat(host.limit(0)).isEqualTo("220000000");
            assertThat(host.limit(1)).isEqualTo("220000000");
        });

        // a second managed node: one goes eco, the first by name (e2e-a), at 120 W: 60 W per package
        managedNode("e2e-b");
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(() -> Double.valueOf(120.0).equals(cap()));
        await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
            assertThat(host.limit(0)).isEqualTo("60000000");
            assertThat(host.limit(1)).isEqualTo("60000000");
        });

        // The dashboard and the alerts name only metrics that the two applications export.
        theMonitoringQueriesNameOnlyExportedMetrics();

        // SIGTERM, as the kubelet sends it: the agent puts back the limits it found at start before it exits.
        Process agent = processes.get(1);
        agent.destroy();
        assertThat(agent.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)).as("agent exited after SIGTERM").isTrue();
        assertThat(host.limit(0)).isEqualTo(Long.toString(FakeHost.ORIGINAL_LIMIT_UW));
        assertThat(host.limit(1)).isEqualTo(Long.toString(FakeHost.ORIGINAL_LIMIT_UW));
    }
}
