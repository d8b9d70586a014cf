package io.joulie.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

import java.util.Map;

/** Written by the agent after every action. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TelemetryProfileStatus(
        @JsonPropertyDescription("Outcome of the last control action per family.") ControlStatus control) {

    /** {@code observed}: the node cap in force after the action, watts. */
    public static final String OBSERVED_CAP_WATTS = "capWatts";
    /** {@code observed}: the DVFS throttle the agent holds, percent. */
    public static final String OBSERVED_THROTTLE_PCT = "throttlePct";
    /**
     * {@code observed}: the {@code metadata.generation} of the NodePowerProfile the action answered; the operator labels
     * a node {@code performance} only once its agent reports the performance cap applied for the generation in force.
     */
    public static final String OBSERVED_PROFILE_GENERATION = "profileGeneration";

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ControlStatus(
            @JsonPropertyDescription("CPU control outcome.") ControlResult cpu,
            @JsonPropertyDescription("GPU control outcome.") ControlResult gpu) {
    }

    public enum Result {
        @JsonProperty("applied") APPLIED,
        @JsonProperty("blocked") BLOCKED,
        @JsonProperty("error") ERROR,
        @JsonProperty("none") NONE
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ControlResult(
            @JsonPropertyDescription("Backend that acted, e.g. powercap, dvfs, http.") String backend,
            @JsonPropertyDescription("applied, blocked, error or none.") Result result,
            @JsonPropertyDescription("Human-readable detail, e.g. why it was blocked or clamped.") String message,
            @JsonPropertyDescription("Observed values after the action, e.g. capWattsPerPackage, packagePowerWatts.") Map<String, Double> observed,
            @JsonPropertyDescription("When this result was written (RFC 3339).") String updatedAt) {
    }
}
