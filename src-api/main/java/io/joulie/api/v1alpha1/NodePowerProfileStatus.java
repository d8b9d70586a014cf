package io.joulie.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;

import java.util.List;

/**
 * Two writers, disjoint fields (server-side apply, one field manager each): the operator owns everything but
 * {@code applied} (where the node stands in the transition, why, and whether the agent confirmed the spec), the node's
 * agent owns {@code applied} (what it did with the spec, generation by generation).
 */
@com.fasterxml.jackson.annotation.JsonClassDescription("Two writers with disjoint fields: the operator writes the state, "
        + "since, reason, the performance-only pods and its verdict on the agent's answer; the node's agent writes applied.")
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodePowerProfileStatus(
        @JsonPropertyDescription("Transition state: ActivePerformance, DrainingPerformance or ActiveEco.")
        PowerState state,
        @JsonPropertyDescription("When the node entered this state (RFC 3339).")
        @Size(max = Limits.WORD) String since,
        @JsonPropertyDescription("Why the node is in this state, e.g. \"2 performance-only pods: ns/a, ns/b\".")
        @Size(max = Limits.REASON) String reason,
        @JsonPropertyDescription("The metadata.generation of the spec the operator's part of this status was written for.")
        Long observedGeneration,
        @JsonPropertyDescription("How many performance-only pods the operator saw on the node.")
        Integer performancePods,
        @JsonPropertyDescription("Performance-only pods (namespace/name) that escalation force left under the eco cap; the "
                + "contract watchdog leaves them alone; at most " + Limits.PODS + " of them (forcedPodCount counts all).")
        @Size(max = Limits.PODS) List<@Size(max = Limits.POD) String> forcedPods,
        @JsonPropertyDescription("How many performance-only pods escalation force left under the eco cap (forcedPods lists "
                + "the first " + Limits.PODS + ").")
        Integer forcedPodCount,
        @JsonPropertyDescription("The operator's reading of applied against metadata.generation: Confirmed (this generation "
                + "applied), Waiting (not answered yet, or the agent restored the firmware limits), Refused (blocked or error) "
                + "or Unreported (no agent serves the node).")
        CapConfirmation agent,
        @JsonPropertyDescription("Why the agent's answer is not Confirmed.")
        @Size(max = Limits.MESSAGE) String agentMessage,
        @JsonPropertyDescription("Written by the node's agent alone: what it did with the spec.")
        Applied applied) {

    public NodePowerProfileStatus {
        forcedPods = forcedPods == null || forcedPods.isEmpty() ? null : List.copyOf(forcedPods);
        reason = Limits.clip(reason, Limits.REASON);
        agentMessage = Limits.clip(agentMessage, Limits.MESSAGE);
    }

    /** The operator's part: state, since and reason for one generation of the spec. */
    public NodePowerProfileStatus(PowerState state, String since, String reason, Long observedGeneration) {
        this(state, since, reason, observedGeneration, null, null, null, null, null, null);
    }

    /** The agent's part alone (what the agent applies with its field manager). */
    public static NodePowerProfileStatus ofApplied(Applied applied) {
        return new NodePowerProfileStatus(null, null, null, null, null, null, null, null, null, applied);
    }

    /** This status without the agent's part (what the operator applies with its field manager). */
    public NodePowerProfileStatus operatorPart() {
        return withApplied(null);
    }

    /** The same status with {@code applied} as the agent's part. */
    public NodePowerProfileStatus withApplied(Applied applied) {
        return new NodePowerProfileStatus(state, since, reason, observedGeneration, performancePods, forcedPods, forcedPodCount,
                agent, agentMessage, applied);
    }

    /** The same status for another generation of the spec. */
    public NodePowerProfileStatus withObservedGeneration(Long generation) {
        return new NodePowerProfileStatus(state, since, reason, generation, performancePods, forcedPods, forcedPodCount, agent,
                agentMessage, applied);
    }

    /** The agent's answer to one generation of the spec, per control family. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Applied(
            @JsonPropertyDescription("The metadata.generation of the spec the agent acted on.")
            Long generation,
            @JsonPropertyDescription("The CPU packages: what the agent did and the limits in force.")
            Cpu cpu,
            @JsonPropertyDescription("The GPU boards: what the agent did and the limits in force.")
            Gpu gpu,
            @JsonPropertyDescription("When the agent wrote this answer (RFC 3339).")
            @Size(max = Limits.WORD) String time) {
    }

    /** What both families' answers say. */
    public interface Family {
        ControlResult result();

        String backend();

        String message();
    }

    /** The CPU family's answer. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Cpu(
            @JsonPropertyDescription("Applied, Blocked, Error, None or Restored.")
            ControlResult result,
            @JsonPropertyDescription("What acted: powercap, dvfs, http or none.")
            @Size(max = Limits.WORD) String backend,
            @JsonPropertyDescription("The node's CPU cap in force after the action: the sum of the packages' limits read back "
                    + "(or the cap sent, http and dvfs), in watts.")
            Double watts,
            @JsonPropertyDescription("The DVFS throttle the agent holds, percent of the cpufreq policies at their minimum.")
            Double throttlePercent,
            @JsonPropertyDescription("The long-term limit of each package as read back after the action.")
            @Size(max = Limits.DEVICES) List<Device> packages,
            @JsonPropertyDescription("Why it was blocked, what failed, or what was clamped.")
            @Size(max = Limits.MESSAGE) String message) implements Family {
        public Cpu {
            packages = packages == null || packages.isEmpty() ? null : List.copyOf(Limits.first(packages, Limits.DEVICES));
            message = Limits.clip(message, Limits.MESSAGE);
        }
    }

    /** The GPU family's answer. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Gpu(
            @JsonPropertyDescription("Applied, Blocked, Error, None or Restored.")
            ControlResult result,
            @JsonPropertyDescription("What acted: nvml, http or none.")
            @Size(max = Limits.WORD) String backend,
            @JsonPropertyDescription("The power limit of each board as read back after the action (or sent, http).")
            @Size(max = Limits.DEVICES) List<Device> boards,
            @JsonPropertyDescription("Why it was blocked, what failed, or what was clamped.")
            @Size(max = Limits.MESSAGE) String message) implements Family {
        public Gpu {
            boards = boards == null || boards.isEmpty() ? null : List.copyOf(Limits.first(boards, Limits.DEVICES));
            message = Limits.clip(message, Limits.MESSAGE);
        }
    }

    /** One CPU package or GPU board and the limit in force on it. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Device(
            @JsonPropertyDescription("The package's or board's index (RAPL's, NVML's, or the HTTP endpoint's).") Integer index,
            @JsonPropertyDescription("The board's name, e.g. NVIDIA H100 80GB HBM3.") @Size(max = Limits.TEXT) String name,
            @JsonPropertyDescription("The limit in force, as read back, in watts.") Double watts) {
        public Device {
            name = Limits.clip(name, Limits.TEXT);
        }
    }
}
