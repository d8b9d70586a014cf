package io.joulie.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;

import java.util.List;

/** Written by the node's agent: what it found, and which controls work. */
@com.fasterxml.jackson.annotation.JsonClassDescription("Written by the node's agent when what it found changes: the CPUs and GPUs, their power ranges and which controls work.")
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeHardwareStatus(
        @JsonPropertyDescription("The CPUs.") Cpu cpu,
        @JsonPropertyDescription("The GPUs.") Gpu gpu,
        @JsonPropertyDescription("When the agent wrote this inventory (RFC 3339).") @Size(max = Limits.WORD) String updatedAt) {

    /** How a family's power can be controlled on the node. */
    public enum Control {
        /** RAPL long_term limits (CPU). */
        @JsonProperty("powercap") POWERCAP,
        /** cpufreq ceilings, the DVFS loop (CPU). */
        @JsonProperty("dvfs") DVFS,
        /** NVML power limits (GPU). */
        @JsonProperty("nvml") NVML,
        /** An HTTP endpoint (simulated hardware). */
        @JsonProperty("http") HTTP,
        /** Nothing the agent can write. */
        @JsonProperty("none") NONE
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Cpu(
            @JsonPropertyDescription("Vendor: intel, amd or other.") @Size(max = Limits.WORD) String vendor,
            @JsonPropertyDescription("Model name as /proc/cpuinfo gives it.") @Size(max = Limits.TEXT) String model,
            @JsonPropertyDescription("Physical packages (sockets).") Integer sockets,
            @JsonPropertyDescription("Physical cores over all sockets.") Integer cores,
            @JsonPropertyDescription("Logical CPUs (hardware threads).") Integer threads,
            @JsonPropertyDescription("RAPL packages with their long-term power range.") @Size(max = Limits.DEVICES) List<CpuPackage> packages,
            @JsonPropertyDescription("The cpufreq range over all policies.") FrequencyRange cpufreq,
            @JsonPropertyDescription("How the CPU power can be capped: powercap, dvfs, http or none.") Control control,
            @JsonPropertyDescription("What the agent cannot read or use on these CPUs and why, when there is something (e.g. "
                    + "the MSR devices refused by the container runtime's device cgroup).") @Size(max = Limits.MESSAGE) String message) {

        public Cpu {
            model = Limits.clip(model, Limits.TEXT);
            packages = Limits.first(packages, Limits.DEVICES);
            message = Limits.clip(message, Limits.MESSAGE);
        }

        /** Without a message: everything found can be used. */
        public Cpu(String vendor, String model, Integer sockets, Integer cores, Integer threads, List<CpuPackage> packages,
                   FrequencyRange cpufreq, Control control) {
            this(vendor, model, sockets, cores, threads, packages, cpufreq, control, null);
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record CpuPackage(
            @JsonPropertyDescription("The powercap zone, e.g. intel-rapl:0.") @Size(max = Limits.WORD) String zone,
            @JsonPropertyDescription("Lowest long-term limit the package accepts, in watts, if reported.") Double minWatts,
            @JsonPropertyDescription("Highest long-term limit: constraint max_power_uw, else the TDP, in watts.") Double maxWatts,
            @JsonPropertyDescription("Thermal design power from MSR_PKG_POWER_INFO, in watts, if readable.") Double tdpWatts) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record FrequencyRange(
            @JsonPropertyDescription("Lowest cpuinfo_min_freq, kHz.") Long minKHz,
            @JsonPropertyDescription("Highest cpuinfo_max_freq, kHz.") Long maxKHz) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Gpu(
            @JsonPropertyDescription("Vendor, e.g. nvidia.") @Size(max = Limits.WORD) String vendor,
            @JsonPropertyDescription("Model of the first board, e.g. NVIDIA H100 80GB HBM3.") @Size(max = Limits.TEXT) String model,
            @JsonPropertyDescription("Number of boards.") Integer count,
            @JsonPropertyDescription("Each board with its power-limit constraints.") @Size(max = Limits.DEVICES) List<GpuBoard> devices,
            @JsonPropertyDescription("How the boards' power can be capped: nvml, http or none.") Control control,
            @JsonPropertyDescription("Why GPU control is not available, when it is not (e.g. NVML could not be loaded).") @Size(max = Limits.MESSAGE) String message) {
        public Gpu {
            model = Limits.clip(model, Limits.TEXT);
            devices = Limits.first(devices, Limits.DEVICES);
            message = Limits.clip(message, Limits.MESSAGE);
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record GpuBoard(
            @JsonPropertyDescription("The board's index.") Integer index,
            @JsonPropertyDescription("The board's name.") @Size(max = Limits.TEXT) String name,
            @JsonPropertyDescription("Lowest power limit the board accepts, in watts.") Double minWatts,
            @JsonPropertyDescription("Highest power limit the board accepts, in watts.") Double maxWatts,
            @JsonPropertyDescription("The board's default power limit, in watts.") Double defaultWatts,
            @JsonPropertyDescription("The power limit in force, in watts.") Double limitWatts) {
        public GpuBoard {
            name = Limits.clip(name, Limits.TEXT);
        }
    }
}
