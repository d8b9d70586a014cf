package io.joulie.planner;

import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.NodeHardwareStatus.Control;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.CpuPower;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.GpuPower;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.OptionalDouble;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProfileCapsTest {
    /** Two packages of 250 W and four boards of 700 W, as an agent publishes them. */
    static NodeHardwareStatus gpuServer(Control cpuControl, Control gpuControl) {
        return new NodeHardwareStatus(new NodeHardwareStatus.Cpu("intel", "x", 2, 64, 128,
                List.of(new NodeHardwareStatus.CpuPackage("intel-rapl:0", null, 250.0, 250.0),
                        new NodeHardwareStatus.CpuPackage("intel-rapl:1", null, 250.0, 250.0)), null, cpuControl),
                new NodeHardwareStatus.Gpu("nvidia", "H100", 4, List.of(board(0), board(1), board(2), board(3)), gpuControl, null), null);
    }

    static NodeHardwareStatus.GpuBoard board(int i) {
        return new NodeHardwareStatus.GpuBoard(i, "H100", 200.0, 700.0, 700.0, 700.0);
    }

    @Test
    void anInventorySaysWhatANodeHasAndWhetherItCanBeCapped() {
        NodePower gpuNode = NodePower.of(gpuServer(Control.NONE, Control.NVML), 0);
        assertThat(gpuNode.cpuMaxWatts()).hasValue(500);
        assertThat(gpuNode.gpus()).isEqualTo(4);
        assertThat(gpuNode.gpuMaxWatts()).hasValue(2800);
        assertThat(gpuNode.controllable()).as("a GPU node whose CPU cannot be capped is managed through its GPUs").isTrue();
        assertThat(NodePower.of(gpuServer(Control.NONE, Control.NONE), 4).controllable()).isFalse();
        assertThat(NodePower.of(null, 8)).satisfies(n -> {
            assertThat(n.gpus()).as("before the inventory, what the Node advertises").isEqualTo(8);
            assertThat(n.controllable()).isTrue();
            assertThat(n.cpuMaxWatts()).isEmpty();
        });
    }

    @Test
    void aPercentIsOfTheMaximaAndWattsAreAsGivenNeverAboveThem() {
        NodePower node = NodePower.of(gpuServer(Control.POWERCAP, Control.NVML), 0);
        ProfileCaps eco = new ProfileCaps(CpuPower.percent(60), GpuPower.percent(60));
        assertThat(eco.cpuWatts(node)).hasValue(300);
        assertThat(eco.gpuWatts(node)).hasValue(1680);
        assertThat(eco.watts(node)).hasValue(1980);
        assertThat(eco.gpuFor(node)).contains(GpuPower.percent(60));

        ProfileCaps performance = new ProfileCaps(CpuPower.watts(5000), GpuPower.watts(1000));
        assertThat(performance.watts(node)).as("capped at what the hardware can draw").hasValue(500 + 2800);
        assertThat(performance.watts(NodePower.of(null, 2))).as("no inventory: as given").hasValue(5000 + 2000);
    }

    @Test
    void aPercentWithoutAnInventoryCannotBeEstimatedAndACpuOnlyNodeGetsNoGpuCap() {
        ProfileCaps eco = new ProfileCaps(CpuPower.percent(60), GpuPower.percent(60));
        assertThat(eco.watts(NodePower.UNKNOWN)).isEmpty();
        assertThat(eco.gpuWatts(NodePower.UNKNOWN)).hasValue(0);
        assertThat(eco.gpuFor(NodePower.UNKNOWN)).isEmpty();
        assertThat(new ProfileCaps(CpuPower.watts(120), GpuPower.percent(60)).watts(NodePower.UNKNOWN)).isEqualTo(OptionalDouble.of(120));
    }

    @Test
    void aCapIsWattsOrAPercentNeverBothNorNeither() {
        assertThatThrownBy(() -> new ProfileCaps(new CpuPower(100.0, 50.0), GpuPower.percent(60))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ProfileCaps(CpuPower.watts(100), new GpuPower(null, null))).isInstanceOf(IllegalArgumentException.class);
    }
}
