package io.joulie.planner;

import io.joulie.api.v1alpha1.NodeHardwareStatus;

import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * What the planner knows of a node's power hardware, from its NodeHardware (written by its agent) and, before that
 * exists, the GPUs its Node advertises: the summed long-term maximum of its CPU packages, its GPU boards and their
 * summed maximum, and whether each family can be capped.
 *
 * @param cpuMaxWatts the sum of the packages' long-term maxima; empty when not known (no inventory, a package without one)
 * @param gpus        the number of GPU boards the agent can cap (inventory, else the Node's allocatable {@code nvidia.com/gpu};
 *                    AMD boards are not counted, decision 201)
 * @param gpuMaxWatts the sum of the boards' highest limits; empty when not known
 * @param inventory   the agent published an inventory: {@code cpuControllable} and {@code gpuControllable} say what it found
 */
public record NodePower(OptionalDouble cpuMaxWatts, int gpus, OptionalDouble gpuMaxWatts, boolean inventory,
                        boolean cpuControllable, boolean gpuControllable) {
    /** Nothing known: no inventory, no GPU advertised. */
    public static final NodePower UNKNOWN = new NodePower(OptionalDouble.empty(), 0, OptionalDouble.empty(), false, true, false);

    /**
     * @param hardware       the node's NodeHardware status, or null when its agent has published none
     * @param advertisedGpus GPUs the Node's allocatable resources advertise (device plugins)
     */
    public static NodePower of(NodeHardwareStatus hardware, int advertisedGpus) {
        if (hardware == null) {
            return new NodePower(OptionalDouble.empty(), advertisedGpus, OptionalDouble.empty(), false, true, advertisedGpus > 0);
        }
        NodeHardwareStatus.Cpu cpu = hardware.cpu();
        NodeHardwareStatus.Gpu gpu = hardware.gpu();
        List<NodeHardwareStatus.CpuPackage> packages = cpu == null || cpu.packages() == null ? List.of() : cpu.packages();
        List<NodeHardwareStatus.GpuBoard> boards = gpu == null || gpu.devices() == null ? List.of() : gpu.devices();
        int gpus = gpu != null && gpu.count() != null ? gpu.count() : boards.size();
        return new NodePower(sum(packages.stream().map(NodeHardwareStatus.CpuPackage::maxWatts).toList()), gpus,
                sum(boards.stream().map(NodeHardwareStatus.GpuBoard::maxWatts).toList()), true,
                cpu != null && cpu.control() != null && cpu.control() != NodeHardwareStatus.Control.NONE,
                gpus > 0 && gpu.control() != null && gpu.control() != NodeHardwareStatus.Control.NONE);
    }

    /** The sum, when every value is a known positive number and there is one. */
    private static OptionalDouble sum(List<Double> values) {
        if (values.isEmpty() || values.stream().anyMatch(v -> v == null || !(v > 0))) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(values.stream().filter(Objects::nonNull).mapToDouble(Double::doubleValue).sum());
    }

    /** Whether a profile can be enforced at all: an inventory that found neither family controllable says no. */
    public boolean controllable() {
        return !inventory || cpuControllable || gpuControllable;
    }
}
