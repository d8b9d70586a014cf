package io.joulie.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.Condition;

import java.util.List;

/** Written by the operator, only when something in it changes. */
@com.fasterxml.jackson.annotation.JsonClassDescription("Written by the operator's leader, only when something in it changes: conditions, agent counts, the settings in force and the nodes by state.")
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JoulieStatus(
        @JsonPropertyDescription("Available, Progressing and Degraded (installation and planning) and MonitoringReady, "
                + "each with a reason.") @Size(max = Limits.ENTRIES) List<Condition> conditions,
        @JsonPropertyDescription("The metadata.generation this status describes.") Long observedGeneration,
        @JsonPropertyDescription("Agent pods wanted and ready.") Agents agents,
        @JsonPropertyDescription("The planner settings in force: spec.policy over the defaults. "
                + "An invalid spec.policy leaves the last valid settings in force.") JoulieSpec.Policy effectivePolicy,
        @JsonPropertyDescription("Managed nodes by power state, as of the last planning tick.") Nodes nodes,
        @JsonPropertyDescription("Nodes selected for management but left out of planning, with the reason: the first " + Limits.NODES
                + " (nodes.excluded counts all).")
        @Size(max = Limits.NODES) List<ExcludedNode> excludedNodes,
        @JsonPropertyDescription("The number of performance nodes the power budget allowed when telemetry was last "
                + "available, held while it is not; kept here so that it survives a restart or a change of leader.")
        BudgetHold budgetHold) {

    public JoulieStatus(List<Condition> conditions, Long observedGeneration, Agents agents) {
        this(conditions, observedGeneration, agents, null, null, null, null);
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record BudgetHold(
            @JsonPropertyDescription("Performance nodes the budget allowed.") Integer performanceNodes,
            @JsonPropertyDescription("The budget (spec.policy.powerBudget.watts) the count was made for; another budget "
                    + "does not use it.") Double budgetWatts) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Agents(
            @JsonPropertyDescription("Nodes that should run an agent.") Integer desired,
            @JsonPropertyDescription("Agent pods ready.") Integer ready,
            @JsonPropertyDescription("Agent pods running the current template.") Integer updated) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Nodes(
            @JsonPropertyDescription("Nodes taking part in planning.") Integer managed,
            @JsonPropertyDescription("Nodes in ActivePerformance and labelled performance.") Integer activePerformance,
            @JsonPropertyDescription("Nodes in DrainingPerformance (planned eco, waiting for performance pods to leave).")
            Integer drainingPerformance,
            @JsonPropertyDescription("Nodes in ActiveEco.") Integer activeEco,
            @JsonPropertyDescription("Nodes left out of planning (see excludedNodes).") Integer excluded,
            @JsonPropertyDescription("Nodes in ActivePerformance whose performance label waits for their agent to confirm "
                    + "the performance cap (not counted in activePerformance).") Integer waitingForAgent) {

        public Nodes(Integer managed, Integer activePerformance, Integer drainingPerformance, Integer activeEco,
                     Integer excluded) {
            this(managed, activePerformance, drainingPerformance, activeEco, excluded, 0);
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ExcludedNode(
            @JsonPropertyDescription("Node name.") @Size(max = Limits.NAME) String name,
            @JsonPropertyDescription("Why the node is not planned, e.g. NoPowerControl.") @Size(max = Limits.WORD) String reason,
            @JsonPropertyDescription("Details.") @Size(max = Limits.MESSAGE) String message) {
        public ExcludedNode {
            message = Limits.clip(message, Limits.MESSAGE);
        }
    }
}
