package io.joulie.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.joulie.api.text.Forms;

import java.util.List;

/**
 * The rule parts of {@code spec.policy} of the {@code Joulie} resource: schedule windows, a cluster power
 * budget, hotspots, and the telemetry source they read (docs/policies.md#rules).
 */
public final class PolicyRulesSpec {
    private PolicyRulesSpec() {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "!has(self.minPerformanceNodes) || !has(self.maxPerformanceNodes) "
            + "|| self.minPerformanceNodes <= self.maxPerformanceNodes",
            message = "minPerformanceNodes must not be above maxPerformanceNodes")
    public record Schedule(
            @JsonPropertyDescription("Name shown in NodePowerProfile reasons.")
            @Size(max = Limits.WORD)
            String name,
            @JsonPropertyDescription("Days the window starts on: Mon..Sun (or full names), ranges such as Mon-Fri allowed.")
            @Size(min = 1, max = 7)
            List<@Pattern(Forms.DAY_RANGE) @Size(max = Limits.WORD) String> days,
            @JsonPropertyDescription("Local start time, HH:MM (inclusive).")
            @Pattern(Forms.CLOCK_TIME)
            String start,
            @JsonPropertyDescription("Local end time, HH:MM (exclusive); not after start means the window runs past midnight.")
            @Pattern(Forms.CLOCK_TIME)
            String end,
            @JsonPropertyDescription("IANA time zone of start and end; defaults to spec.policy.timeZone, else UTC.")
            @Pattern(Forms.TIME_ZONE) @Size(max = Limits.WORD)
            String timeZone,
            @JsonPropertyDescription("Share of eligible nodes in performance while the window is open (0..1).")
            @Min(0) @Max(1)
            Double performanceShare,
            @JsonPropertyDescription("Lower bound on performance nodes while the window is open.")
            @Min(0)
            Integer minPerformanceNodes,
            @JsonPropertyDescription("Upper bound on performance nodes while the window is open.")
            @Min(0)
            Integer maxPerformanceNodes) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record PowerBudget(
            @JsonPropertyDescription("Upper bound on the managed nodes' summed CPU package power, in watts.")
            @Min(value = 0, inclusive = false)
            Double watts) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Hotspots(
            @JsonPropertyDescription("A node, or a rack by its mean, above this CPU temperature (°C) is hot.")
            Double thresholdCelsius,
            @JsonPropertyDescription("A hot node or rack cools down only below threshold minus this band (°C, default 5).")
            @Min(0)
            Double hysteresisCelsius,
            @JsonPropertyDescription("Node label naming the rack (default joulie.io/rack).")
            @Pattern(Forms.LABEL_KEY) @Size(max = Limits.TEXT)
            String rackLabel) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Telemetry(
            @JsonPropertyDescription("Prometheus to query over its HTTP API.")
            Prometheus prometheus) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "!has(self.bearerTokenFile) || !has(self.basicAuth)", message = "give bearerTokenFile or basicAuth, not both")
    public record Prometheus(
            @JsonPropertyDescription("Base URL, e.g. http://prometheus-k8s.monitoring:9090.")
            @Pattern(Forms.HTTP_URL) @Size(max = Limits.URL)
            String url,
            @JsonPropertyDescription("Label carrying the Kubernetes node name in per-node results (default node).")
            @Pattern(Forms.PROMETHEUS_LABEL) @Size(max = Limits.WORD)
            String nodeLabel,
            @JsonPropertyDescription("Timeout of each query (default 5s, at most 30s).")
            @Pattern(Forms.DURATION) @Size(max = Limits.WORD)
            String timeout,
            @JsonPropertyDescription("Samples older than this count as missing (default 2m).")
            @Pattern(Forms.DURATION) @Size(max = Limits.WORD)
            String staleAfter,
            @JsonPropertyDescription("PromQL per signal.")
            Queries queries,
            @JsonPropertyDescription("A file in the operator's container holding a bearer token sent with every query, read "
                    + "again each time (a rotated token is picked up), e.g. /var/run/secrets/kubernetes.io/serviceaccount/token "
                    + "for OpenShift's Thanos querier, or a mounted Secret.")
            @Pattern(Forms.ABSOLUTE_PATH) @Size(max = Limits.TEXT)
            String bearerTokenFile,
            @JsonPropertyDescription("Basic authentication: a user and a file holding its password.")
            BasicAuth basicAuth,
            @JsonPropertyDescription("A PEM file in the operator's container with the CA certificates that sign the server's "
                    + "certificate (https URLs); default: the JVM's trusted authorities.")
            @Pattern(Forms.ABSOLUTE_PATH) @Size(max = Limits.TEXT)
            String caFile,
            @JsonPropertyDescription("true sends bearerTokenFile or basicAuth credentials over a plain http url, where anyone "
                    + "on the path can read them; without it (default false) credentials require an https url.")
            Boolean insecure) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record BasicAuth(
            @JsonPropertyDescription("User name.")
            @io.fabric8.generator.annotation.Required @Size(max = Limits.TEXT)
            String username,
            @JsonPropertyDescription("A file in the operator's container (a mounted Secret) holding the password.")
            @io.fabric8.generator.annotation.Required
            @Pattern(Forms.ABSOLUTE_PATH) @Size(max = Limits.TEXT)
            String passwordFile) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Queries(
            @JsonPropertyDescription("CPU package power in watts, one series per node.")
            @Size(max = Limits.QUERY) String packagePowerWatts,
            @JsonPropertyDescription("CPU temperature in °C, one series per node.")
            @Size(max = Limits.QUERY) String cpuTemperatureCelsius,
            @JsonPropertyDescription("Facility PUE, a single value (optional).")
            @Size(max = Limits.QUERY) String pue,
            @JsonPropertyDescription("Grid carbon intensity in gCO2/kWh, a single value (optional).")
            @Size(max = Limits.QUERY) String carbonIntensity) {
    }
}
