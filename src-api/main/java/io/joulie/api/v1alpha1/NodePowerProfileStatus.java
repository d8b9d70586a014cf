package io.joulie.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

import java.util.List;

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
        Long observedGeneration,
        @JsonPropertyDescription("The cap asked for and the cap the node's agent reports in force, side by side.")
        Cap cap,
        @JsonPropertyDescription("Performance-only pods (namespace/name) that escalation force left under the eco cap; the "
                + "contract watchdog leaves them alone.")
        List<String> forcedPods) {

    public NodePowerProfileStatus(PowerState state, String since, String reason, Long observedGeneration) {
        this(state, since, reason, observedGeneration, null, null);
    }

    public NodePowerProfileStatus {
        forcedPods = forcedPods == null || forcedPods.isEmpty() ? null : List.copyOf(forcedPods);
    }

    /** The same status for another generation of the spec. */
    public NodePowerProfileStatus withObservedGeneration(Long generation) {
        return new NodePowerProfileStatus(state, since, reason, generation, cap, forcedPods);
    }

    /** Desired and applied cap, and whether the agent confirmed the desired one. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Cap(
            @JsonPropertyDescription("The cap spec.cpu.packagePowerCapWatts asks for, in watts (unset for a cap in percent).")
            Double desiredWatts,
            @JsonPropertyDescription("The cap spec.cpu.packagePowerCapPercent asks for, in percent of each package's maximum "
                    + "(unset for a cap in watts).")
            Double desiredPercent,
            @JsonPropertyDescription("The cap the node's agent last reported in force (its observed capWatts), in watts.")
            Double appliedWatts,
            @JsonPropertyDescription("Confirmed, Waiting (for the agent), Refused (blocked or error) or Unreported (no agent "
                    + "reports for the node).")
            CapConfirmation agent,
            @JsonPropertyDescription("What the agent said, when it did not confirm.")
            String message) {
    }
}
