package io.joulie.planner;

import io.joulie.api.v1alpha1.NodePowerProfileSpec.CpuPower;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.GpuPower;

import java.util.Optional;
import java.util.OptionalDouble;

/**
 * A profile's caps: the CPU's (watts for the whole node, or a percent of each package's long-term maximum) and the
 * GPUs' (watts per board, or a percent of each board's maximum), exactly one unit each. What a NodePowerProfile gets
 * and what a node is estimated to draw under the profile follow from them and the node's {@link NodePower}.
 */
public record ProfileCaps(CpuPower cpu, GpuPower gpu) {
    public ProfileCaps {
        if (cpu == null || (cpu.packagePowerCapWatts() == null) == (cpu.packagePowerCapPercent() == null)) {
            throw new IllegalArgumentException("a CPU cap is watts or a percent: " + cpu);
        }
        if (gpu == null || (gpu.powerCapWattsPerGpu() == null) == (gpu.powerCapPercent() == null)) {
            throw new IllegalArgumentException("a GPU cap is watts per board or a percent: " + gpu);
        }
    }

    /** What a node's NodePowerProfile asks of its GPUs: this cap where the node has boards, nothing elsewhere. */
    public Optional<GpuPower> gpuFor(NodePower node) {
        return node.gpus() > 0 ? Optional.of(gpu) : Optional.empty();
    }

    /** The CPU packages' cap in watts on this node; empty for a percent of maxima not known. */
    public OptionalDouble cpuWatts(NodePower node) {
        if (cpu.packagePowerCapWatts() != null) {
            return OptionalDouble.of(node.cpuMaxWatts().isPresent()
                    ? Math.min(cpu.packagePowerCapWatts(), node.cpuMaxWatts().getAsDouble()) : cpu.packagePowerCapWatts());
        }
        return node.cpuMaxWatts().isPresent() ? OptionalDouble.of(node.cpuMaxWatts().getAsDouble() * cpu.packagePowerCapPercent() / 100)
                : OptionalDouble.empty();
    }

    /** The GPU boards' caps summed, in watts, on this node (0 without boards); empty for a percent of maxima not known. */
    public OptionalDouble gpuWatts(NodePower node) {
        if (node.gpus() == 0) {
            return OptionalDouble.of(0);
        }
        if (gpu.powerCapWattsPerGpu() != null) {
            double asked = gpu.powerCapWattsPerGpu() * node.gpus();
            return OptionalDouble.of(node.gpuMaxWatts().isPresent() ? Math.min(asked, node.gpuMaxWatts().getAsDouble()) : asked);
        }
        return node.gpuMaxWatts().isPresent() ? OptionalDouble.of(node.gpuMaxWatts().getAsDouble() * gpu.powerCapPercent() / 100)
                : OptionalDouble.empty();
    }

    /** The node's capped draw under these caps, CPU packages and GPU boards; empty when either part is not known. */
    public OptionalDouble watts(NodePower node) {
        OptionalDouble c = cpuWatts(node);
        OptionalDouble g = gpuWatts(node);
        return c.isPresent() && g.isPresent() ? OptionalDouble.of(c.getAsDouble() + g.getAsDouble()) : OptionalDouble.empty();
    }
}
