package io.joulie.agent.control;

import io.joulie.agent.host.CapRequest;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.NodeHardwareStatus.CpuPackage;
import io.joulie.api.v1alpha1.NodeHardwareStatus.GpuBoard;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Caps sent to an HTTP endpoint are watts (the simulated-hardware protocol knows no percent): a percent is resolved
 * here against the hardware the node's telemetry describes ({@link NodeFacts#hardware()}), as the host layer resolves
 * it against the real packages and boards.
 */
public final class RemoteCaps {
    /** The watts to send, with how they were found; or why none can be. */
    public sealed interface Resolution {
    }

    public record Watts(double watts, String how) implements Resolution {
    }

    public record Problem(String why) implements Resolution {
    }

    private RemoteCaps() {
    }

    /** The node's CPU cap in watts: as given, or the percent of the sum of its packages' long-term maxima. */
    public static Resolution cpuNodeWatts(CapRequest cap, Optional<NodeHardwareStatus> hardware) {
        if (cap instanceof CapRequest.Watts(double watts)) {
            return new Watts(watts, "");
        }
        CapRequest.Percent p = (CapRequest.Percent) cap;
        List<CpuPackage> packages = hardware.map(NodeHardwareStatus::cpu).map(NodeHardwareStatus.Cpu::packages).orElse(List.of());
        if (packages.isEmpty() || packages.stream().map(CpuPackage::maxWatts).anyMatch(w -> w == null || !(w > 0))) {
            return new Problem("a percent cap needs each package's maximum, and the node's telemetry gives none "
                    + "(its hardware.cpu.packages[].maxWatts)");
        }
        double sum = packages.stream().mapToDouble(CpuPackage::maxWatts).sum();
        double watts = sum * p.percent() / 100;
        return new Watts(watts, cap.describe() + " of " + CapRequest.format(sum) + " W");
    }

    /**
     * Every board's cap in watts: as given, or the percent of the smallest board maximum, never below the largest
     * board minimum (the protocol sends one value for all boards).
     */
    public static Resolution gpuWattsPerBoard(CapRequest cap, Optional<NodeHardwareStatus> hardware) {
        if (cap instanceof CapRequest.Watts(double watts)) {
            return new Watts(watts, "");
        }
        CapRequest.Percent p = (CapRequest.Percent) cap;
        List<GpuBoard> boards = hardware.map(NodeHardwareStatus::gpu).map(NodeHardwareStatus.Gpu::devices).orElse(List.of());
        if (boards.isEmpty() || boards.stream().map(GpuBoard::maxWatts).anyMatch(w -> w == null || !(w > 0))) {
            return new Problem("a percent cap needs each board's maximum, and the node's telemetry gives none "
                    + "(its hardware.gpu.devices[].maxWatts)");
        }
        double max = boards.stream().mapToDouble(GpuBoard::maxWatts).min().orElseThrow();
        double min = boards.stream().map(GpuBoard::minWatts).filter(Objects::nonNull).mapToDouble(Double::doubleValue).max().orElse(0);
        double watts = Math.max(max * p.percent() / 100, min);
        return new Watts(watts, cap.describe() + " of " + CapRequest.format(max) + " W");
    }
}
