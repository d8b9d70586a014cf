package io.joulie.operator.it;

import io.fabric8.kubernetes.api.model.Condition;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.api.v1alpha1.JoulieStatus;
import io.joulie.api.v1alpha1.PolicyRulesSpec;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.operator.config.OperatorSettings;
import io.joulie.operator.runtime.PlannerLoop;
import io.joulie.operator.telemetry.Credentials;
import io.joulie.operator.telemetry.PrometheusClient;
import io.joulie.operator.telemetry.PrometheusServer;
import io.joulie.operator.telemetry.ScrapedPrometheus;
import io.joulie.operator.telemetry.SyntheticExporter;
import io.joulie.testkit.ServerSideApplyDispatcher;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static io.joulie.operator.it.Cluster.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The rules end to end: the operator on the mock API server reads a real Prometheus, which scrapes a
 * synthetic endpoint serving the node metrics each test sets.
 */
@QuarkusTest
@WithKubernetesTestServer(setup = ServerSideApplyDispatcher.Setup.class)
class TelemetryRulesTest extends OperatorTest {
    static final Duration SLOW = Duration.ofSeconds(40);
    static ScrapedPrometheus scraped;
    static SyntheticExporter exporter;
    static PrometheusServer prometheus;

    @Inject
    PlannerLoop loop;
    @Inject
    OperatorSettings defaults;

    @BeforeAll
    static void startPrometheus() throws Exception {
        scraped = ScrapedPrometheus.start();
        exporter = scraped.exporter();
        prometheus = scraped.server();
    }

    @AfterAll
    static void stopPrometheus() throws Exception {
        if (scraped != null) {
            scraped.close();
        }
    }

    @BeforeEach
    @AfterEach
    void noInstallation() {
        cluster.noJoulie(loop, defaults, () -> { });
    }


    static PolicyRulesSpec.Telemetry telemetry(String power, String temperature) {
        return new PolicyRulesSpec.Telemetry(new PolicyRulesSpec.Prometheus(prometheus.url().toString(), "node", "2s", "30s",
                new PolicyRulesSpec.Queries(power, temperature, null, null), null, null, null, null));
    }

    static JoulieSpec.Policy policy(double share, List<PolicyRulesSpec.Schedule> schedules, Double budget,
                                    Double hotAbove, PolicyRulesSpec.Telemetry telemetry) {
        return JoulieSpec.Policy.of("type", "static_partition", "staticHpFrac", share, "performanceCapWatts", 500.0,
                "ecoCapWatts", 100.0, "timeZone", "Europe/Berlin", "schedules", schedules,
                "powerBudget", budget == null ? null : new PolicyRulesSpec.PowerBudget(budget),
                "hotspots", hotAbove == null ? null : new PolicyRulesSpec.Hotspots(hotAbove, 5.0, null), "telemetry", telemetry);
    }

    Condition degraded() {
        Joulie j = client.resources(Joulie.class).withName("joulie").get();
        JoulieStatus s = j == null ? null : j.getStatus();
        return s == null || s.conditions() == null ? null
                : s.conditions().stream().filter(c -> c.getType().equals("Degraded")).findFirst().orElse(null);
    }

    List<String> eco(List<String> nodes) {
        return nodes.stream().filter(n -> cluster.profile(n) != null && cluster.profile(n).getSpec().profile() == Profile.ECO).toList();
    }

    String reason(String node) {
        var p = cluster.profile(node);
        return p == null || p.getStatus() == null ? "" : p.getStatus().reason();
    }

    @Test
    void aNodeMadeHotThroughTheScrapedEndpointGoesEcoFirst() {
        List<String> nodes = List.of("hot-a", "hot-b", "hot-c", "hot-d");
        nodes.forEach(n -> exporter.set("it_temp_celsius", n, 50));
        nodes.forEach(cluster::managedNode);
        cluster.joulie(policy(0.75, null, null, 80.0, telemetry(null, "it_temp_celsius")));
        // Without heat, anti-churn picks the first by name.
        await().atMost(SLOW).untilAsserted(() -> assertThat(eco(nodes)).containsExactly("hot-a"));

        exporter.set("it_temp_celsius", "hot-c", 91);

        await().atMost(SLOW).untilAsserted(() -> {
            assertThat(eco(nodes)).containsExactly("hot-c");
            assertThat(reason("hot-c")).isEqualTo("selected for eco by static_partition; hotspot: node above 80 °C");
            assertThat(Cluster.metric("joulie_rules_hot_nodes")).isEqualTo(1);
            assertThat(Cluster.metric("joulie_rules_eco_nodes", "rule=\"hotspot\"")).isEqualTo(1);
        });
        // Cooling inside the hysteresis band (above 75 °C) keeps it hot ...
        exporter.set("it_temp_celsius", "hot-c", 77);
        awaitTicksReading("it_temp_celsius{node=\"hot-c\"}", 77);
        assertThat(Cluster.metric("joulie_rules_hot_nodes")).isEqualTo(1);
        assertThat(reason("hot-c")).endsWith("; hotspot: node above 80 °C");
        assertThat(eco(nodes)).containsExactly("hot-c");
        // ... below it, it is not hot any more, and anti-churn keeps it eco anyway.
        exporter.set("it_temp_celsius", "hot-c", 70);
        awaitTicksReading("it_temp_celsius{node=\"hot-c\"}", 70);
        assertThat(Cluster.metric("joulie_rules_hot_nodes")).isZero();
        assertThat(reason("hot-c")).isEqualTo("selected for eco by static_partition");
        assertThat(eco(nodes)).containsExactly("hot-c");
    }

    /**
     * Waits until Prometheus answers {@code query} with {@code value}, then for two more completed ticks: the second
     * started after Prometheus had the value, so the operator planned with it.
     */
    static void awaitTicksReading(String query, double value) {
        PrometheusClient client = new PrometheusClient(prometheus.url(), Duration.ofSeconds(2), Credentials.NONE);
        await().atMost(SLOW).ignoreExceptions().until(() -> client.query(query).points().stream()
                .anyMatch(p -> p.value() == value));
        double ticks = Cluster.metric("joulie_ticks_total", "result=\"ok\"");
        await().atMost(SLOW).until(() -> Cluster.metric("joulie_ticks_total", "result=\"ok\"") >= ticks + 2);
    }

    @Test
    void aBudgetIsEnforcedFromMeasuredPowerAndAnUnmeetableOneIsReported() {
        List<String> nodes = List.of("pw-a", "pw-b", "pw-c", "pw-d");
        nodes.forEach(n -> exporter.set("it_power_watts", n, 400));
        nodes.forEach(cluster::managedNode);
        // all performance: 4 x 400 = 1600 W measured; 1300 W fits with one node at the 100 W eco cap
        cluster.joulie(policy(1.0, null, 1300.0, null, telemetry("it_power_watts", null)));

        await().atMost(SLOW).untilAsserted(() -> {
            assertThat(eco(nodes)).containsExactly("pw-a");
            assertThat(reason("pw-a")).isEqualTo("selected for eco by static_partition; power budget 1300 W");
            assertThat(Cluster.metric("joulie_rules_power_budget_configured")).isEqualTo(1);
            assertThat(Cluster.metric("joulie_rules_power_budget_watts")).isEqualTo(1300);
            assertThat(Cluster.metric("joulie_rules_power_estimate_watts")).isEqualTo(1300);
            assertThat(Cluster.metric("joulie_rules_power_budget_met")).isEqualTo(1);
            JoulieStatus s = client.resources(Joulie.class).withName("joulie").get().getStatus();
            assertThat(s.effectivePolicy().powerBudget().watts()).isEqualTo(1300.0);
            assertThat(s.effectivePolicy().telemetry().prometheus().queries().packagePowerWatts()).isEqualTo("it_power_watts");
        });

        // A 300 W budget: even all eco (4 x 100 W) exceeds it -> reported, not ignored.
        cluster.setJoulieSpec(new JoulieSpec(null, policy(1.0, null, 300.0, null, telemetry("it_power_watts", null)), null));
        await().atMost(SLOW).untilAsserted(() -> {
            assertThat(eco(nodes)).containsExactlyElementsOf(nodes);
            Condition d = degraded();
            assertThat(d).isNotNull();
            assertThat(d.getStatus()).isEqualTo("True");
            assertThat(d.getReason()).isEqualTo("PowerBudgetUnmet");
            assertThat(d.getMessage()).contains("power budget of 300 W cannot be met");
            assertThat(cluster.events("PowerBudgetUnmet")).isNotEmpty();
            assertThat(Cluster.metric("joulie_rules_power_budget_met")).isZero();
        });
    }

    /**
     * The energy-saved counters on the operator's live scrape (decision 205): both nodes run half loaded at 300 W at
     * performance, which they learn; then one goes eco and draws 200 W at the same load: 100 W saved, counted while it
     * stays there, and its measured energy counted as eco.
     */
    @Test
    void anEcoNodeAtItsLearntLoadCountsTheEnergyItSaves() {
        // a metric of its own: series it leaves in the exporter must not feed the other tests' power queries
        List<String> nodes = List.of("es-a", "es-b");
        for (String n : nodes) {
            cluster.typedNode(n, "t1", 32);
            cluster.podRequesting("default", "load-" + n, n, null, "16", false);
            exporter.set("it_es_power_watts", n, 300);
        }
        double performance = Cluster.metric("joulie_managed_energy_joules_total", "profile=\"performance\"");
        cluster.joulie(policy(1.0, null, null, null, telemetry("it_es_power_watts", null)));
        await().atMost(SLOW).until(() -> Cluster.metric("joulie_managed_energy_joules_total", "profile=\"performance\"")
                > performance + 2 * 300 * 3); // both nodes learnt for a few seconds
        double saved = Cluster.metric("joulie_energy_saved_joules_total");
        double eco = Cluster.metric("joulie_managed_energy_joules_total", "profile=\"eco\"");

        exporter.set("it_es_power_watts", "es-a", 200);
        cluster.setJoulieSpec(new JoulieSpec(null, policy(0.5, null, null, null, telemetry("it_es_power_watts", null)), null));
        await().atMost(SLOW).untilAsserted(() -> {
            assertThat(eco(nodes)).containsExactly("es-a");
            assertThat(Cluster.metric("joulie_energy_saved_joules_total")).isGreaterThan(saved + 100 * 3);
            assertThat(Cluster.metric("joulie_managed_energy_joules_total", "profile=\"eco\"")).isGreaterThan(eco + 200 * 3);
        });
    }

    @Test
    void stoppingPrometheusIsTelemetryUnavailableWhileTheScheduleAppliesAndARestartRecovers() throws Exception {
        List<String> nodes = List.of("out-a", "out-b", "out-c", "out-d");
        nodes.forEach(n -> exporter.set("it_temp_celsius", n, 50));
        exporter.set("it_temp_celsius", "out-d", 95);
        nodes.forEach(cluster::managedNode);
        // An always-open window raises the share from 0.25 to 0.75: one eco node, the hot one.
        var always = new PolicyRulesSpec.Schedule("always", List.of("Mon-Sun"), "00:00", "00:00", null, 0.75, null, null);
        cluster.joulie(policy(0.25, List.of(always), null, 80.0, telemetry(null, "it_temp_celsius")));
        await().atMost(SLOW).untilAsserted(() -> {
            assertThat(eco(nodes)).containsExactly("out-d");
            assertThat(reason("out-d")).isEqualTo("selected for eco by static_partition; schedule 'always'; hotspot: node above 80 °C");
        });
        double unreachableBefore = Cluster.metric("joulie_telemetry_reads_total", "result=\"unreachable\"");

        prometheus.stop();
        try {
            await().atMost(SLOW).untilAsserted(() -> {
                Condition d = degraded();
                assertThat(d).isNotNull();
                assertThat(d.getStatus()).isEqualTo("True");
                assertThat(d.getReason()).isEqualTo("TelemetryUnavailable");
                assertThat(d.getMessage()).contains("unreachable");
                assertThat(reason("out-d")).endsWith("(held: telemetry unavailable)");
                assertThat(reason("out-a")).contains("schedule 'always'");
                assertThat(Cluster.metric("joulie_telemetry_reads_total", "result=\"unreachable\"")).isGreaterThan(unreachableBefore);
                assertThat(Cluster.metric("joulie_telemetry_available")).isZero();
                assertThat(Cluster.metric("joulie_telemetry_configured")).isEqualTo(1);
            });
            assertThat(eco(nodes)).containsExactly("out-d");
        } finally {
            prometheus.start();
        }

        await().atMost(SLOW).untilAsserted(() -> {
            assertThat(degraded().getReason()).isNotEqualTo("TelemetryUnavailable");
            assertThat(reason("out-d")).isEqualTo("selected for eco by static_partition; schedule 'always'; hotspot: node above 80 °C");
            assertThat(Cluster.metric("joulie_telemetry_available")).isEqualTo(1);
        });
        assertThat(eco(nodes)).containsExactly("out-d");
    }
}
