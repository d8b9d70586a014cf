package io.joulie.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shape of the dashboard and of the rules file. That every metric they name is exported is checked against
 * the running applications in {@link OperatorAndAgentIT}.
 */
class MonitoringFilesTest {
    static final String DATASOURCE = "${datasource}";

    @Test
    void theDashboardIsAGrafanaModelWithADatasourceAClusterAndANodeVariable() throws Exception {
        JsonNode d = Monitoring.dashboard();
        assertThat(d.path("uid").asText()).isEqualTo("joulie");
        assertThat(d.path("title").asText()).isEqualTo("Joulie");
        assertThat(d.path("schemaVersion").asInt()).isEqualTo(39);
        Map<String, JsonNode> vars = new HashMap<>();
        d.path("templating").path("list").forEach(v -> vars.put(v.path("name").asText(), v));
        assertThat(vars).containsOnlyKeys("datasource", "cluster", "node");
        assertThat(vars.get("datasource").path("type").asText()).isEqualTo("datasource");
        assertThat(vars.get("datasource").path("query").asText()).isEqualTo("prometheus");
        assertThat(vars.get("node").path("datasource").path("uid").asText()).isEqualTo(DATASOURCE);
        assertThat(vars.get("node").path("query").path("query").asText())
                .isEqualTo("label_values(joulie_agent_package_power_watts{cluster=~\"$cluster\"}, node)");
        // one Grafana for several clusters (Thanos, Mimir): the label their Prometheus adds; "All" matches no label too
        assertThat(vars.get("cluster").path("query").path("query").asText()).isEqualTo("label_values(joulie_build_info, cluster)");
        assertThat(vars.get("cluster").path("includeAll").asBoolean()).isTrue();
        assertThat(vars.get("cluster").path("allValue").asText()).isEqualTo(".*");
    }

    @Test
    void everyPanelUsesTheDatasourceVariableAndHasAQuery() throws Exception {
        JsonNode panels = Monitoring.dashboard().path("panels");
        assertThat(panels.size()).isGreaterThan(0);
        Set<Integer> ids = new HashSet<>();
        for (JsonNode p : panels) {
            String title = p.path("title").asText();
            assertThat(ids.add(p.path("id").asInt())).as("unique id of panel '%s'", title).isTrue();
            assertThat(p.path("type").asText()).as("type of panel '%s'", title).isIn("timeseries", "stat");
            assertThat(p.path("datasource").path("type").asText()).as("datasource type of '%s'", title).isEqualTo("prometheus");
            assertThat(p.path("datasource").path("uid").asText()).as("datasource of '%s'", title).isEqualTo(DATASOURCE);
            assertThat(p.path("targets").size()).as("targets of panel '%s'", title).isPositive();
            for (JsonNode t : p.path("targets")) {
                assertThat(t.path("expr").asText()).as("expr of a target of '%s'", title).isNotBlank();
                assertThat(t.path("datasource").path("uid").asText()).as("target datasource of '%s'", title).isEqualTo(DATASOURCE);
            }
            assertThat(p.path("gridPos").path("w").asInt()).as("width of '%s'", title).isBetween(1, 24);
        }
    }

    @Test
    void theDashboardShowsEveryMetricAnAdminNeeds() throws Exception {
        Set<String> used = Monitoring.dashboardQueries(Monitoring.dashboard()).stream()
                .flatMap(q -> PromQl.metricNames(q.expr()).stream()).collect(Collectors.toSet());
        assertThat(used).contains("joulie_nodes", "joulie_planned_performance_nodes", "joulie_excluded_nodes",
                "joulie_oldest_drain_seconds", "joulie_transitions_total", "joulie_reassignments_total",
                "joulie_evictions_total", "joulie_errors_total", "joulie_tick_duration_seconds_bucket", "joulie_leader",
                "joulie_agent_package_power_watts", "joulie_agent_package_energy_joules_total",
                "joulie_agent_cap_per_package_watts", "joulie_agent_throttle_ratio", "joulie_agent_actions_total",
                "joulie_agent_errors_total", "joulie_agent_apply_duration_seconds_bucket", "joulie_contract_violations_total",
                "joulie_contract_violation_seconds_bucket", "joulie_performance_caps_unconfirmed",
                "joulie_energy_saved_joules_total", "joulie_managed_energy_joules_total",
                "joulie_energy_saved_unestimated_seconds_total");
        assertThat(used).as("the dashboard shows Joulie's metrics only").allMatch(n -> n.startsWith("joulie_"));
        // every selector of a Joulie metric follows the cluster variable, every join keeps clusters apart
        Monitoring.dashboardQueries(Monitoring.dashboard()).stream().filter(q -> !q.where().startsWith("variable")).forEach(q -> {
            assertThat(q.expr()).as(q.where()).doesNotContainPattern("joulie_[a-z_]+(?![a-z_{])")
                    .doesNotContainPattern("joulie_[a-z_]+\\{(?!cluster=~\"\\$cluster\")");
            if (q.expr().contains(" on (")) {
                assertThat(q.expr()).as(q.where()).contains("on (cluster, instance)");
            }
        });
        // every agent panel follows the node variable
        Monitoring.dashboardQueries(Monitoring.dashboard()).stream().filter(q -> q.expr().contains("joulie_agent_"))
                .filter(q -> !q.where().startsWith("variable"))
                .forEach(q -> assertThat(q.expr()).as(q.where()).contains("node=~\"$node\""));
    }

    /** The product's headline first: the share of energy eco saved over the range, from the operator's counters. */
    @Test
    void theFirstPanelIsTheEnergySavedAgainstAllPerformance() throws Exception {
        JsonNode first = Monitoring.dashboard().path("panels").get(0);
        assertThat(first.path("title").asText()).isEqualTo("Energy saved vs all performance");
        assertThat(first.path("gridPos").path("y").asInt()).isZero();
        assertThat(first.path("fieldConfig").path("defaults").path("unit").asText()).isEqualTo("percentunit");
        String expr = first.path("targets").get(0).path("expr").asText();
        String saved = "sum(increase(joulie_energy_saved_joules_total{cluster=~\"$cluster\"}[$__range]))";
        String used = "sum(increase(joulie_managed_energy_joules_total{cluster=~\"$cluster\"}[$__range]))";
        assertThat(expr).isEqualTo(saved + " / (" + saved + " + " + used + ")");
    }

    @Test
    void theRulesFileHasTheJoulieGroupWithActionableAlerts() throws Exception {
        JsonNode groups = Monitoring.alerts().path("groups");
        assertThat(groups.size()).isEqualTo(1);
        assertThat(groups.get(0).path("name").asText()).isEqualTo("joulie");
        Map<String, JsonNode> alerts = new HashMap<>();
        groups.get(0).path("rules").forEach(r -> alerts.put(r.path("alert").asText(), r));
        assertThat(alerts).containsKeys("JoulieDrainBlocked", "JoulieAgentApplyErrors", "JoulieAgentDown", "JoulieNotPlanning",
                "JoulieOperatorDown", "JoulieNoLeader", "JoulieTelemetryUnavailable", "JouliePowerBudgetUnmet",
                "JoulieAgentPodsNotRunning", "JoulieContractViolation", "JoulieCapUnconfirmed");
        alerts.forEach((name, r) -> {
            assertThat(r.path("for").asText()).as("for of %s", name).matches("\\d+[smh]");
            assertThat(r.path("labels").path("severity").asText()).as("severity of %s", name).isIn("warning", "critical");
            assertThat(r.path("annotations").path("summary").asText()).as("summary of %s", name).isNotBlank();
            assertThat(r.path("annotations").path("description").asText()).as("description of %s", name).isNotBlank();
        });
        assertThat(alerts.get("JoulieDrainBlocked").path("expr").asText()).contains("joulie_oldest_drain_seconds > 3600");
        // no rule depends on how Prometheus was told to scrape Joulie (ServiceMonitor, annotations, static)
        alerts.forEach((name, r) -> assertThat(r.path("expr").asText()).as("expr of %s", name).doesNotContain("job"));
        assertThat(alerts.get("JoulieAgentDown").path("expr").asText()).contains("up == 0", "joulie_agent_build_info");
        assertThat(alerts.get("JoulieOperatorDown").path("expr").asText()).isEqualTo("absent(joulie_build_info)");
        assertThat(alerts.get("JoulieNotPlanning").path("expr").asText())
                .contains("joulie_last_tick_timestamp_seconds", "joulie_leader == 1");
        assertThat(alerts.get("JoulieContractViolation").path("expr").asText()).contains("joulie_contract_violations_total");
        assertThat(alerts.get("JoulieCapUnconfirmed").path("expr").asText())
                .contains("joulie_performance_caps_unconfirmed{reason=\"overdue\"}", "joulie_leader == 1");
    }

    /**
     * Every alert links its runbook: a section of docs/runbooks.md named after the alert (GitHub's anchor is the
     * heading in lower case), which says what the alert means, what to check and what to do.
     */
    @Test
    void everyAlertHasARunbookSection() throws Exception {
        List<String> headings = Files.readAllLines(java.nio.file.Path.of(System.getProperty("repository.root"), "docs", "runbooks.md"))
                .stream().filter(l -> l.startsWith("## ")).map(l -> l.substring(3).strip()).toList();
        List<String> names = new java.util.ArrayList<>();
        Monitoring.alerts().path("groups").get(0).path("rules").forEach(r -> {
            String name = r.path("alert").asText();
            names.add(name);
            assertThat(r.path("annotations").path("runbook_url").asText()).as("runbook_url of %s", name)
                    .isEqualTo(RUNBOOKS + name.toLowerCase(java.util.Locale.ROOT));
        });
        assertThat(headings).as("sections of docs/runbooks.md, one per alert").containsAll(names);
    }

    static final String RUNBOOKS = "https://github.com/joulie-io/joulie/blob/main/docs/runbooks.md#";

    @Test
    void aScrapeExportsSampleNamesAndTheSeriesOfItsHistograms() {
        Set<String> names = Monitoring.exported("""
                # HELP joulie_ticks_total Ticks
                # TYPE joulie_ticks_total counter
                joulie_ticks_total{result="ok"} 3.0
                # TYPE joulie_tick_duration_seconds histogram
                joulie_tick_duration_seconds_max 0.1
                joulie_leader 1.0
                """);
        assertThat(names).containsExactlyInAnyOrder("joulie_ticks_total", "joulie_tick_duration_seconds_max", "joulie_leader",
                "joulie_tick_duration_seconds_bucket", "joulie_tick_duration_seconds_count", "joulie_tick_duration_seconds_sum");
    }

    @Test
    void namesNeitherExportedNorAllowedBuiltInsAreReportedWithTheirPlace() {
        List<Monitoring.Query> queries = List.of(new Monitoring.Query("panel 'P' target A", "rate(joulie_typo_total[5m])"),
                new Monitoring.Query("alert A", "up{job=\"x\"} == 0 and joulie_leader == 1"));
        Set<String> exported = Set.of("joulie_leader");
        assertThat(Monitoring.unexported(queries, exported, Set.of()))
                .containsExactly("alert A: up", "panel 'P' target A: joulie_typo_total");
        assertThat(Monitoring.unexported(queries, exported, Monitoring.PROMETHEUS_BUILT_INS))
                .containsExactly("panel 'P' target A: joulie_typo_total");
    }
}
