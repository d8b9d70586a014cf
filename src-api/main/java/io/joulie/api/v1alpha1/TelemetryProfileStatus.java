package io.joulie.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

import java.util.List;
import java.util.Map;

/** Written by the agent after every action. */
@com.fasterxml.jackson.annotation.JsonClassDescription("Written by the agent when the outcome of a control action changes: per family the backend, the result and why.")
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
            @JsonPropertyDescription("Per device (GPU board) values after the action, by index.") List<Device> devices,
            @JsonPropertyDescription("When this result was written (RFC 3339).") String updatedAt) {

        /** A result without per-device values (the CPU family). */
        public ControlResult(String backend, Result result, String message, Map<String, Double> observed, String updatedAt) {
            this(backend, result, message, observed, null, updatedAt);
        }
    }

    /**
     * One device of a control family (a GPU board) as read after the action. Power and energy are the readings of
     * when the status was written; live values are in the agent's metrics.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Device(
            @JsonPropertyDescription("The device's index (NVML's, or the HTTP endpoint's).") Integer index,
            @JsonPropertyDescription("The device's name, e.g. NVIDIA H100 80GB HBM3.") String name,
            @JsonPropertyDescription("Power limit in force, as read back, in watts.") Double capWatts,
            @JsonPropertyDescription("Power drawn, in watts.") Double powerWatts,
            @JsonPropertyDescription("Energy counter, in joules (since the driver loaded).") Double energyJoules) {
    }
}
