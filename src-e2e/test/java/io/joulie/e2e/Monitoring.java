package io.joulie.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The Grafana dashboard and the Prometheus rules the operator installs (src/main/resources/monitoring), the
 * PromQL they contain, and the metric names a Prometheus scrape exposes.
 */
final class Monitoring {
    static final Path DIR = Path.of(System.getProperty("repository.root"), "src", "main", "resources", "monitoring");
    static final Path DASHBOARD = DIR.resolve("joulie-dashboard.json");
    static final Path ALERTS = DIR.resolve("joulie-alerts.yaml");
    /** Series Prometheus itself writes for every target; the alerts may use them, the dashboard shows only Joulie's. */
    static final Set<String> PROMETHEUS_BUILT_INS = Set.of("up");
    private static final List<String> HISTOGRAM_SUFFIXES = List.of("_bucket", "_count", "_sum");

    /** A PromQL expression and where it was found, for messages. */
    record Query(String where, String expr) {
    }

    private Monitoring() {
    }

    static JsonNode dashboard() throws IOException {
        return new ObjectMapper().readTree(DASHBOARD.toFile());
    }

    static JsonNode alerts() throws IOException {
        return new YAMLMapper().readTree(ALERTS.toFile());
    }

    /** Every panel target's {@code expr} and every query variable's query. */
    static List<Query> dashboardQueries(JsonNode dashboard) {
        List<Query> out = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                out.add(new Query("panel '" + panel.path("title").asText() + "' target " + target.path("refId").asText(),
                        target.path("expr").asText()));
            }
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if ("query".equals(variable.path("type").asText())) {
                out.add(new Query("variable " + variable.path("name").asText(), variable.path("query").path("query").asText()));
            }
        }
        return out;
    }

    /** Every rule's {@code expr} (alerting and recording rules of all groups). */
    static List<Query> alertQueries(JsonNode rules) {
        List<Query> out = new ArrayList<>();
        for (JsonNode group : rules.path("groups")) {
            for (JsonNode rule : group.path("rules")) {
                String name = rule.has("alert") ? "alert " + rule.path("alert").asText() : "record " + rule.path("record").asText();
                out.add(new Query(name, rule.path("expr").asText()));
            }
        }
        return out;
    }

    /**
     * The metric names in a Prometheus text exposition: the name of every sample, and for a histogram
     * announced by {@code # TYPE} its {@code _bucket/_count/_sum} series too.
     */
    static Set<String> exported(String exposition) {
        Set<String> names = new HashSet<>();
        for (String line : exposition.split("\n")) {
            String l = line.strip();
            if (l.startsWith("# TYPE ")) {
                String[] parts = l.split("\\s+");
                if (parts.length == 4 && parts[3].equals("histogram")) {
                    HISTOGRAM_SUFFIXES.forEach(s -> names.add(parts[2] + s));
                }
            } else if (!l.isEmpty() && !l.startsWith("#")) {
                int end = 0;
                while (end < l.length() && l.charAt(end) != '{' && !Character.isWhitespace(l.charAt(end))) {
                    end++;
                }
                names.add(l.substring(0, end));
            }
        }
        return names;
    }

    /**
     * The names the queries use that are neither exported nor allowed built-ins, as "where: name" lines
     * (empty when every name is exported).
     */
    static Set<String> unexported(List<Query> queries, Set<String> exported, Set<String> builtIns) {
        Set<String> missing = new TreeSet<>();
        for (Query q : queries) {
            for (String name : PromQl.metricNames(q.expr())) {
                if (!exported.contains(name) && !builtIns.contains(name)) {
                    missing.add(q.where() + ": " + name);
                }
            }
        }
        return missing;
    }
}
