package io.joulie.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.joulie.api.BuildInfo;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.harness.JavaApp;
import io.joulie.testkit.FakeHost;
import io.joulie.testkit.PrometheusText;
import io.joulie.testkit.ServerSideApplyDispatcher;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
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
    /** The operator's and the agent's logs. */
    static final Path LOGS = Path.of("target");
    /** The operator, then the agent. */
    static final List<JavaApp> apps = new ArrayList<>();

    @BeforeAll
    static void start() throws IOException {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), true);
        server.init();
        ServerSideApplyDispatcher.install(server); // the operator and the agent write with server-side apply
        client = server.createClient();
        for (String crd : List.of("10-crd-nodepowerprofiles.joulie.io.yml", "10-crd-telemetryprofiles.joulie.io.yml")) {
            CustomResourceDefinition def = client.apiextensions().v1().customResourceDefinitions()
                    .load(REPO.resolve("kubernetes").resolve(crd).toFile()).item();
            client.resource(def).create();
        }
        host = FakeHost.intelNode(Files.createTempDirectory("joulie-e2e-host"), 2, 250);
        Map<String, String> operator = new HashMap<>(JavaApp.apiServer(server.url("/")));
        operator.putAll(Map.of("LEADER_ELECTION", "false", "RECONCILE_INTERVAL", "1s", "PERFORMANCE_CAP_WATTS", "440",
                "ECO_CAP_WATTS", "120"));
        apps.add(JavaApp.start("operator", JavaApp.Packaged.OPERATOR.jar(REPO), operator, LOGS));
        Map<String, String> agent = new HashMap<>(JavaApp.apiServer(server.url("/")));
        agent.putAll(host.agentEnvironment());
        // the agent logs JSON, as an admin switches it on (docs/configuration.md#logs); the operator keeps text
        agent.putAll(Map.of("NODE_NAME", NODE, "AGENT_RECONCILE_INTERVAL", "1s", "QUARKUS_LOG_CONSOLE_JSON_ENABLED", "true"));
        apps.add(JavaApp.start("agent", JavaApp.Packaged.AGENT.jar(REPO), agent, LOGS));
    }

    @AfterAll
    static void stop() {
        apps.forEach(JavaApp::close);
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.destroy();
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
            Set<String> exported = new HashSet<>(Monitoring.exported(PrometheusText.scrape(apps.get(0).managementPort())));
            exported.addAll(Monitoring.exported(PrometheusText.scrape(apps.get(1).managementPort())));
            assertThat(Monitoring.unexported(Monitoring.dashboardQueries(dashboard), exported, Set.of()))
                    .as("dashboard metrics the applications do not export").isEmpty();
            assertThat(Monitoring.unexported(Monitoring.alertQueries(alerts), exported, Monitoring.PROMETHEUS_BUILT_INS))
                    .as("alert metrics the applications do not export").isEmpty();
        });
    }

    /**
     * The day-2 conventions on live scrapes of both applications (decision 203): a build-info metric with this
     * build's version, the DVFS throttle as a 0-1 ratio, the operator's count of agent pods under its own prefix,
     * _configured gauges and no NaN or -1 sentinel among Joulie's samples.
     */
    static void theScrapesFollowTheConventions() {
        String operator = PrometheusText.scrape(apps.get(0).managementPort());
        String agent = PrometheusText.scrape(apps.get(1).managementPort());
        String version = "version=\"" + BuildInfo.current().version() + "\"";
        assertThat(PrometheusText.sum(operator, "joulie_build_info", version)).isEqualTo(1);
        assertThat(PrometheusText.sum(agent, "joulie_agent_build_info", version)).isEqualTo(1);
        assertThat(PrometheusText.sum(agent, "joulie_agent_throttle_ratio", "node=\"" + NODE + "\"")).isBetween(0.0, 1.0);
        assertThat(Monitoring.exported(operator)).contains("joulie_operand_pods", "joulie_telemetry_configured",
                "joulie_rules_power_budget_configured").doesNotContain("joulie_agent_pods");
        assertThat(Monitoring.exported(agent)).doesNotContain("joulie_agent_throttle_percent");
        for (String scrape : List.of(operator, agent)) {
            assertThat(scrape.lines().filter(l -> l.startsWith("joulie_"))
                    .filter(l -> l.endsWith(" NaN") || l.endsWith(" -1.0") || l.endsWith(" -1")))
                    .as("Joulie samples with a sentinel value").isEmpty();
        }
    }

    /** The agent ran with QUARKUS_LOG_CONSOLE_JSON_ENABLED=true: its log records are JSON objects, none a text line. */
    static void theAgentLogsJson() throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<String> lines = Files.readAllLines(LOGS.resolve("agent.log"));
        assertThat(lines).as("Quarkus text log lines in the agent's log").noneMatch(l -> l.matches("^\\d{4}-\\d\\d-\\d\\d \\d\\d:.*"));
        List<JsonNode> records = new ArrayList<>();
        for (String l : lines.stream().filter(l -> l.startsWith("{")).toList()) {
            records.add(json.readTree(l));
        }
        assertThat(records).as("JSON log records").isNotEmpty().allSatisfy(r -> assertThat(r.has("level") && r.has("message")).isTrue());
        assertThat(records).anySatisfy(r -> assertThat(r.path("loggerName").asText()).startsWith("io.joulie.agent"));
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
        theScrapesFollowTheConventions();
        theAgentLogsJson();

        // SIGTERM, as the kubelet sends it: the agent puts back the limits it found at start before it exits.
        Process agent = apps.get(1).process();
        agent.destroy();
        assertThat(agent.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)).as("agent exited after SIGTERM").isTrue();
        assertThat(host.limit(0)).isEqualTo(Long.toString(FakeHost.ORIGINAL_LIMIT_UW));
        assertThat(host.limit(1)).isEqualTo(Long.toString(FakeHost.ORIGINAL_LIMIT_UW));
    }
}
