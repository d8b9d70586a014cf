package io.joulie.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** Written by the operator: where the node stands in the transition state machine, and why. */
@com.fasterxml.jackson.annotation.JsonClassDescription("Written by the operator: where the node stands in the transition from performance to eco and back, since when, and why.")
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodePowerProfileStatus(
        @JsonPropertyDescription("Transition state: ActivePerformance, DrainingPerformance or ActiveEco.")
        PowerState state,
        @JsonPropertyDescription("When the node entered this state (RFC 3339).")
        String since,
        @JsonPropertyDescription("Why the node is in this state, e.g. \"2 performance-only pods: ns/a, ns/b\".")
        String reason,
        @JsonPropertyDescription("The metadata.generation of the spec this status was written for.")
        Long observedGeneration) {
}
