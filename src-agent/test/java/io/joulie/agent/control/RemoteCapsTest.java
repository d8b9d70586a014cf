package io.joulie.agent.control;

import io.joulie.agent.host.CapRequest;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class RemoteCapsTest {
    static Optional<NodeHardwareStatus> hardware(List<NodeHardwareStatus.CpuPackage> packages, List<NodeHardwareStatus.GpuBoard> boards) {
        return Optional.of(new NodeHardwareStatus(new NodeHardwareStatus.Cpu(null, null, null, null, null, packages, null, null),
                new NodeHardwareStatus.Gpu(null, null, boards.size(), boards, null, null), null));
    }

    @Test
    void wattsPassAsTheyAreAndAPercentNeedsTheHardware() {
        assertThat(RemoteCaps.cpuNodeWatts(new CapRequest.Watts(240), Optional.empty())).isEqualTo(new RemoteCaps.Watts(240, ""));
        assertThat(RemoteCaps.gpuWattsPerBoard(new CapRequest.Watts(300), Optional.empty())).isEqualTo(new RemoteCaps.Watts(300, ""));
        assertThat(RemoteCaps.cpuNodeWatts(new CapRequest.Percent(60), Optional.empty())).isInstanceOf(RemoteCaps.Problem.class);
        assertThat(RemoteCaps.gpuWattsPerBoard(new CapRequest.Percent(60), hardware(List.of(),
                List.of(new NodeHardwareStatus.GpuBoard(0, null, 100.0, null, null, null))))).isEqualTo(new RemoteCaps.Problem(
                "a percent cap needs each board's maximum, and the node's telemetry gives none (its hardware.gpu.devices[].maxWatts)"));
    }

    @Test
    void aCpuPercentIsOfTheSumOfThePackagesMaximaAndAGpuPercentOfTheSmallestBoardNeverBelowTheLargestMinimum() {
        Optional<NodeHardwareStatus> hw = hardware(
                List.of(new NodeHardwareStatus.CpuPackage("p0", null, 250.0, null), new NodeHardwareStatus.CpuPackage("p1", null, 200.0, null)),
                List.of(new NodeHardwareStatus.GpuBoard(0, null, 200.0, 700.0, null, null),
                        new NodeHardwareStatus.GpuBoard(1, null, 300.0, 400.0, null, null)));
        assertThat(RemoteCaps.cpuNodeWatts(new CapRequest.Percent(60), hw)).isEqualTo(new RemoteCaps.Watts(270, "60 % of 450 W"));
        assertThat(RemoteCaps.gpuWattsPerBoard(new CapRequest.Percent(50), hw)).isEqualTo(new RemoteCaps.Watts(300, "50 % of 400 W"));
        assertThat(RemoteCaps.gpuWattsPerBoard(new CapRequest.Percent(90), hw)).isEqualTo(new RemoteCaps.Watts(360, "90 % of 400 W"));
    }
}
