package io.joulie.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.joulie.api.text.Forms;

/** What the operator wants the node's agent to apply. */
@com.fasterxml.jackson.annotation.JsonClassDescription("What the operator wants the node's agent to apply: the profile and its CPU and GPU caps.")
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodePowerProfileSpec(
        @Required @JsonPropertyDescription("Name of the Node this profile applies to. Agents find their object by this field.")
        @Pattern(Forms.DNS_SUBDOMAIN) @Size(max = Limits.NAME)
        String nodeName,
        @Required @JsonPropertyDescription("Power profile of the node: performance (unconstrained) or eco (energy-saving cap).")
        Profile profile,
        @JsonPropertyDescription("CPU power settings the agent enforces.")
        CpuPower cpu,
        @JsonPropertyDescription("GPU power settings the agent enforces on every board of the node.")
        GpuPower gpu,
        @JsonPropertyDescription("The policy that decided this profile (informational).")
        PolicyRef policy) {

    /** A profile without GPU settings. */
    public NodePowerProfileSpec(String nodeName, Profile profile, CpuPower cpu, PolicyRef policy) {
        this(nodeName, profile, cpu, null, policy);
    }

    /** The node's CPU cap: absolute watts, or a percent of each package's maximum; never both. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "!(has(self.packagePowerCapWatts) && has(self.packagePowerCapPercent))",
            message = "packagePowerCapWatts and packagePowerCapPercent are mutually exclusive")
    public record CpuPower(
            @Min(value = 0, inclusive = false)
            @JsonPropertyDescription("Node-wide CPU package power cap in watts (> 0); the agent splits it evenly across packages.")
            Double packagePowerCapWatts,
            @Min(value = 0, inclusive = false) @Max(100)
            @JsonPropertyDescription("CPU package power cap as a percent (0 < p <= 100) of each package's long-term maximum "
                    + "(constraint max_power_uw, or the TDP the MSRs report), resolved by the agent on the node's hardware. "
                    + "Mutually exclusive with packagePowerCapWatts.")
            Double packagePowerCapPercent) {

        public static CpuPower watts(double watts) {
            return new CpuPower(watts, null);
        }

        public static CpuPower percent(double percent) {
            return new CpuPower(null, percent);
        }
    }

    /** The cap of every GPU board of the node: absolute watts per board, or a percent of each board's maximum; never both. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "!(has(self.powerCapWattsPerGpu) && has(self.powerCapPercent))",
            message = "powerCapWattsPerGpu and powerCapPercent are mutually exclusive")
    public record GpuPower(
            @Min(value = 0, inclusive = false)
            @JsonPropertyDescription("Power limit of every GPU board in watts (> 0), clamped to each board's constraints.")
            Double powerCapWattsPerGpu,
            @Min(value = 0, inclusive = false) @Max(100)
            @JsonPropertyDescription("Power limit of every GPU board as a percent (0 < p <= 100) of the board's maximum limit, "
                    + "never below its minimum. Mutually exclusive with powerCapWattsPerGpu.")
            Double powerCapPercent) {

        public static GpuPower watts(double wattsPerGpu) {
            return new GpuPower(wattsPerGpu, null);
        }

        public static GpuPower percent(double percent) {
            return new GpuPower(null, percent);
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record PolicyRef(
            @JsonPropertyDescription("Name of the deciding policy: static_partition, queue_aware_v1, demand_sized_v1 or rule_swap_v1.")
            @Size(max = Limits.WORD) String name) {
    }
}
