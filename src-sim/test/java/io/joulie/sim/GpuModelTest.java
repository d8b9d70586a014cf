package io.joulie.sim;

import io.joulie.api.v1alpha1.NodePowerProfileSpec.GpuPower;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class GpuModelTest {
    /** 8 A100-class boards: 50 W idle, 400 W busy at the highest clock, limits 100 … 400 W, β 3, φ 0.8, clocks 420 … 1410 MHz. */
    private final GpuModel a100 = NodeCatalog.types().get("gpu-a100x8").gpu();
    /** The clock a 240 W limit leaves a busy board: 50 + 350·(0.2 + 0.8·f³) = 240. */
    private static final double F_240 = Math.cbrt((190.0 / 350 - 0.2) / 0.8);

    /** A busy A100 board's clock at 240 W when its job has intensity w: 120 + 280·w·f³ = 240. */
    static double f240(double w) {
        return Math.cbrt((190.0 / 350 - 0.2) / (0.8 * w));
    }

    @Test
    void aLimitLowersABusyBoardsClockToTheHighestThatMeetsIt() {
        assertThat(F_240).isCloseTo(0.7539, within(1e-4));
        assertThat(a100.frequency(240)).isCloseTo(F_240, within(1e-12));
        assertThat(a100.frequency(400)).as("at the highest limit: the highest clock").isEqualTo(1.0);
        assertThat(a100.duty(F_240, 240)).isEqualTo(1.0);
        assertThat(a100.power(1, F_240, 240)).as("one busy board at the limit, seven idle").isCloseTo(240 + 7 * 50, within(1e-9));
        assertThat(a100.power(8, 1, 400)).isEqualTo(3200.0);
        assertThat(a100.power(0, 1, 240)).as("idle boards do not depend on the limit").isEqualTo(400.0);
    }

    @Test
    void belowTheLowestClocksPowerTheBoardIsDutyCycledAndDrawsTheLimit() {
        double fmin = 420.0 / 1410;
        double atFmin = 50 + 350 * (0.2 + 0.8 * Math.pow(fmin, 3));
        assertThat(atFmin).as("more than the lowest limit").isGreaterThan(100);
        assertThat(a100.frequency(100)).isCloseTo(fmin, within(1e-12));
        double duty = a100.duty(fmin, 100);
        assertThat(duty).isCloseTo((100 - 50) / (atFmin - 50), within(1e-12));
        assertThat(a100.power(8, fmin, 100)).as("every busy board draws the limit").isCloseTo(800, within(1e-9));
        assertThat(a100.power(8, a100.frequency(10), 10)).as("a limit below the range is clamped to 100 W").isCloseTo(800, within(1e-9));
    }

    @Test
    void capsResolveOnTheBoardAndAreClampedToItsRange() {
        GpuModel h100 = NodeCatalog.types().get("gpu-h100x8").gpu();
        assertThat(a100.capWatts(GpuPower.percent(60))).isEqualTo(240.0);
        assertThat(h100.capWatts(GpuPower.percent(60))).as("a percent of each type's own highest limit").isEqualTo(420.0);
        assertThat(a100.capWatts(GpuPower.watts(300))).isEqualTo(300.0);
        assertThat(h100.capWatts(GpuPower.watts(300))).isEqualTo(300.0);
        assertThat(a100.capWatts(GpuPower.watts(150))).isEqualTo(150.0);
        assertThat(h100.capWatts(GpuPower.watts(150))).as("below the H100's lowest limit").isEqualTo(200.0);
        assertThat(a100.capWatts(GpuPower.watts(800))).isEqualTo(400.0);
        assertThat(h100.capWatts(GpuPower.watts(800))).isEqualTo(700.0);
        assertThat(a100.capWatts(GpuPower.percent(10))).as("10 % is 40 W, below the range").isEqualTo(100.0);
    }

    @Test
    void aGpuJobsSpeedDependsOnTheBoardsClockAndItsSensitivity() {
        NodeType type = NodeCatalog.types().get("gpu-a100x8");
        SimNode n = new SimNode(0, "g", type, 0, Simulation.EPOCH);
        n.capWatts = type.model().capMaxWatts();
        n.gpuCapWatts = 240;
        n.usedGpus = 2;
        n.usedCores = 4;
        n.refresh(0);
        JobSpec sensitive = JobSpec.of(0, 0, 4, 2, 7200, 1.0, null, false);
        JobSpec insensitive = JobSpec.of(1, 0, 4, 2, 7200, 0.3, null, false);
        assertThat(n.speed(sensitive)).as("2 boards at f").isCloseTo(2 * F_240, within(1e-12));
        // s = 0.3 draws w = 1 − 0.5·0.7 = 0.65 of the clock-scaled power: its board runs at a higher clock under 240 W
        assertThat(n.speed(insensitive)).isCloseTo(2 * (1 - (1 - f240(0.65)) * 0.3), within(1e-12));
        assertThat(f240(0.65)).isGreaterThan(F_240 + 0.1);
        assertThat(n.speed(JobSpec.of(2, 0, 4, 7200, 1.0, null))).as("a CPU job runs by the CPU's clock, uncapped here")
                .isEqualTo(4.0);
        assertThat(n.gpuPowerWatts).isCloseTo(2 * 240 + 6 * 50, within(1e-9));
        assertThat(n.powerWatts).as("the host's power plus the boards'")
                .isCloseTo(type.model().measuredPower(4.0 / 56, 1, n.capWatts) + n.gpuPowerWatts, within(1e-9));
    }

    @Test
    void badFiguresAreRefusedWithTheirNames() {
        assertThatThrownBy(() -> GpuModel.of(8, 400, 300, 3, 0.8, 420, 1410, 100, 400, 400))
                .hasMessageContaining("maximum power must exceed its idle power");
        assertThatThrownBy(() -> GpuModel.of(8, 50, 400, 3, 0.8, 420, 1410, 500, 400, 400))
                .hasMessageContaining("limit range needs 0 < min ≤ max");
        assertThatThrownBy(() -> GpuModel.of(8, 50, 400, 3, 0.8, 420, 1410, 100, 400, 450))
                .hasMessageContaining("default limit 450.0 W is outside its range");
        assertThatThrownBy(() -> GpuModel.of(8, 50, 400, 3, 1.5, 420, 1410, 100, 400, 400))
                .hasMessageContaining("φ in (0, 1]");
        assertThatThrownBy(() -> GpuModel.of(8, 50, 400, 3, 0.8, 1500, 1410, 100, 400, 400))
                .hasMessageContaining("0 < fmin ≤ fmax");
        assertThatThrownBy(() -> GpuModel.of(0, 50, 400, 3, 0.8, 420, 1410, 100, 400, 400))
                .hasMessageContaining("at least 1 board");
    }
}
