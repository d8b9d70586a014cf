package io.joulie.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.joulie.api.text.Forms;

/** What the operator wants the node's agent to apply. */
@com.fasterxml.jackson.annotation.JsonClassDescription("What the operator wants the node's agent to apply: the profile and its CPU cap.")
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodePowerProfileSpec(
        @Required @JsonPropertyDescription("Name of the Node this profile applies to. Agents find their object by this field.")
        @Pattern(Forms.DNS_SUBDOMAIN)
        String nodeName,
        @Required @JsonPropertyDescription("Power profile of the node: performance (unconstrained) or eco (energy-saving cap).")
        Profile profile,
        @JsonPropertyDescription("CPU power settings the agent enforces.")
        CpuPower cpu,
        @JsonPropertyDescription("The policy that decided this profile (informational).")
        PolicyRef policy) {

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record CpuPower(
            @Min(value = 0, inclusive = false)
            @JsonPropertyDescription("Node-wide CPU package power cap in watts (> 0); the agent splits it evenly across packages.")
            Double packagePowerCapWatts) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record PolicyRef(
            @JsonPropertyDescription("Name of the deciding policy: static-partition-v1, queue-aware-v1 or rule-swap-v1.")
            String name) {
    }
}
