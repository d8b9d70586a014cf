package io.joulie.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;

import java.util.List;

/** Written by the operator, only when something in it changes. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JoulieStatus(
        @JsonPropertyDescription("Available, Progressing and Degraded, each with a reason.") List<Condition> conditions,
        @JsonPropertyDescription("The metadata.generation this status describes.") Long observedGeneration,
        @JsonPropertyDescription("Agent pods wanted and ready.") Agents agents) {

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Agents(
            @JsonPropertyDescription("Nodes that should run an agent.") Integer desired,
            @JsonPropertyDescription("Agent pods ready.") Integer ready,
            @JsonPropertyDescription("Agent pods running the current template.") Integer updated) {
    }
}
