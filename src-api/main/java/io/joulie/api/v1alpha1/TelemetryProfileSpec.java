package io.joulie.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.joulie.api.text.Forms;

/** Routing of each signal family. {@code {node}} in an endpoint is replaced by the node name. */
@com.fasterxml.jackson.annotation.JsonClassDescription("Where each signal family is read and how each control family is applied; {node} in an endpoint is replaced by the node name.")
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TelemetryProfileSpec(
        @Required @JsonPropertyDescription("Which node(s) this profile configures.") Target target,
        @JsonPropertyDescription("Where each telemetry signal family is read from.") Sources sources,
        @JsonPropertyDescription("How each control family is applied.") Controls controls) {

    public enum Scope {
        @JsonProperty("node") NODE,
        @JsonProperty("cluster") CLUSTER
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "self.scope != 'node' || has(self.nodeName)", message = "a node-scoped profile names its node (nodeName)")
    public record Target(
            @Required @JsonPropertyDescription("node: applies to nodeName only; cluster: the default for every node.") Scope scope,
            @JsonPropertyDescription("The node, when scope is node.") @Pattern(Forms.DNS_SUBDOMAIN) @Size(max = Limits.NAME) String nodeName) {
    }

    public enum SourceType {
        @JsonProperty("none") NONE,
        @JsonProperty("host") HOST,
        @JsonProperty("http") HTTP,
        @JsonProperty("prometheus") PROMETHEUS
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Sources(
            @JsonPropertyDescription("CPU package power and energy.") Source cpu,
            @JsonPropertyDescription("GPU power.") Source gpu,
            @JsonPropertyDescription("Temperatures.") Source thermal,
            @JsonPropertyDescription("Facility context such as PUE.") Source context) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Source(
            @JsonPropertyDescription("none, host (sysfs/MSR), http or prometheus.") SourceType type,
            @JsonPropertyDescription("Settings for type http.") HttpEndpoint http,
            @JsonPropertyDescription("Settings for type prometheus.") PrometheusSource prometheus) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record HttpEndpoint(
            @Required @Pattern(Forms.HTTP_URL) @Size(max = Limits.URL) @JsonPropertyDescription("URL; {node} is replaced by the node name.") String endpoint,
            @Min(1) @Max(300) @JsonPropertyDescription("Request timeout in seconds (1..300).") Integer timeoutSeconds) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record PrometheusSource(
            @Required @Pattern(Forms.HTTP_URL) @Size(max = Limits.URL) @JsonPropertyDescription("Base URL of the Prometheus HTTP API.") String endpoint,
            @Required @Size(max = Limits.QUERY) @JsonPropertyDescription("PromQL query; {node} is replaced by the node name.") String query) {
    }

    public enum ControlType {
        @JsonProperty("none") NONE,
        @JsonProperty("host") HOST,
        @JsonProperty("http") HTTP
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Controls(
            @JsonPropertyDescription("CPU power control.") CpuControl cpu,
            @JsonPropertyDescription("GPU power control.") GpuControl gpu) {
    }

    public enum CpuControlMode {
        @JsonProperty("auto") AUTO,
        @JsonProperty("rapl") RAPL,
        @JsonProperty("dvfs") DVFS
    }

    public enum GpuControlMode {
        @JsonProperty("auto") AUTO,
        @JsonProperty("powercap") POWERCAP,
        @JsonProperty("clocks") CLOCKS
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record CpuControl(
            @JsonPropertyDescription("none, host (powercap/cpufreq) or http.") ControlType type,
            @JsonPropertyDescription("Settings for type http.") CpuHttpControl http) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record CpuHttpControl(
            @Required @Pattern(Forms.HTTP_URL) @Size(max = Limits.URL) @JsonPropertyDescription("URL; {node} is replaced by the node name.") String endpoint,
            @Min(1) @Max(300) @JsonPropertyDescription("Request timeout in seconds (1..300).") Integer timeoutSeconds,
            @JsonPropertyDescription("auto, rapl (power cap) or dvfs (throttle).") CpuControlMode mode) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record GpuControl(
            @JsonPropertyDescription("none, host or http.") ControlType type,
            @JsonPropertyDescription("Settings for type http.") GpuHttpControl http) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record GpuHttpControl(
            @Required @Pattern(Forms.HTTP_URL) @Size(max = Limits.URL) @JsonPropertyDescription("URL; {node} is replaced by the node name.") String endpoint,
            @Min(1) @Max(300) @JsonPropertyDescription("Request timeout in seconds (1..300).") Integer timeoutSeconds,
            @JsonPropertyDescription("auto, powercap or clocks.") GpuControlMode mode) {
    }
}
