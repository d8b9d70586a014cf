package io.joulie.sim;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class NodeModelTest {
    private final NodeModel m = NodeModel.defaults();

    @Test
    void powerFollowsTheModelAtGivenUtilisationAndFrequency() {
        assertThat(m.power(0, 1)).isEqualTo(80.0);
        assertThat(m.power(0, 0.5)).as("idle does not depend on f").isEqualTo(80.0);
        assertThat(m.power(1, 1)).isEqualTo(420.0);
        // 80 + 340 * 0.5^1.15 * 0.8^1.35
        assertThat(m.power(0.5, 0.8)).isCloseTo(193.3616, within(1e-3));
        assertThat(m.power(0.25, 1)).isCloseTo(149.0415, within(1e-3));
        assertThat(m.power(1, 0.1)).as("f is clamped to fmin/fmax = 0.375").isEqualTo(m.power(1, 0.375));
    }

    @Test
    void capLowersFrequencyToTheValueThatMeetsIt() {
        double f = m.capFrequency(1, 260);
        assertThat(f).isCloseTo(0.62431, within(1e-4));
        assertThat(m.power(1, f)).isCloseTo(260, within(1e-9));
        assertThat(m.capFrequency(1, 500)).as("cap above pmax: full speed").isEqualTo(1.0);
        assertThat(m.capFrequency(0, 80)).as("idle node meets any cap").isEqualTo(1.0);
        assertThat(m.capFrequency(1, 80)).as("no headroom above idle: fmin").isEqualTo(0.375);
        assertThat(m.capFrequency(0.5, 260)).as("a half-loaded node meets 260 W at full speed")
                .isEqualTo(1.0);
    }

    @Test
    void capIsClampedAndMeasuredPowerNeverExceedsCapPlusTolerance() {
        assertThat(m.clampCap(10)).isEqualTo(80);
        assertThat(m.clampCap(9000)).isEqualTo(5000);
        // at fmin a full node draws 170 W, more than the (clamped) 80 W cap, which is idle: RAPL halts the cores, the
        // meter reads the cap and jobs make no progress; under a 125 W cap the cores run 45 W of the 90.5 W above idle
        // that fmin takes
        assertThat(m.measuredPower(1, m.capFrequency(1, 10), 10)).isEqualTo(80.0);
        assertThat(m.duty(1, m.capFrequency(1, 10), 10)).isZero();
        assertThat(m.duty(1, m.capFrequency(1, 125), 125)).isCloseTo(45 / (m.power(1, 0.375) - 80), within(1e-12))
                .isCloseTo(0.497, within(1e-3));
        assertThat(m.measuredPower(1, m.capFrequency(1, 125), 125)).isCloseTo(125, within(1e-9));
        assertThat(m.duty(1, m.capFrequency(1, 260), 260)).as("a cap it can meet costs no duty cycle").isEqualTo(1.0);
        for (double cap = 80; cap <= 500; cap += 20) {
            for (double u = 0; u <= 1.0; u += 0.125) {
                assertThat(m.measuredPower(u, m.capFrequency(u, cap), cap)).isLessThanOrEqualTo(cap + 5);
            }
        }
    }

    @Test
    void measuredPowerNeverReadsBelowTheFloor() {
        NodeModel lowIdle = SimConfig.of(Map.of("node.idleWatts", "5")).nodeTypes().getFirst().model();
        assertThat(lowIdle.measuredPower(0, 1, 5000)).isEqualTo(20.0);
        assertThat(lowIdle.measuredPower(1, 1, 5000)).isEqualTo(420.0);
    }

    @Test
    void throttleRampsWithTheTimeConstant() {
        double f = m.throttleStep(1.0, 40, 0.5);
        assertThat(f).as("after one τ, 1 − 1/e of the way to 0.6").isCloseTo(0.7471518, within(1e-6));
        double stepped = 1.0;
        for (int i = 0; i < 10; i++) {
            stepped = m.throttleStep(stepped, 40, 0.05);
        }
        assertThat(stepped).as("ten small steps equal one step of the same total").isCloseTo(f, within(1e-12));
        double settled = 1.0;
        for (int i = 0; i < 100; i++) {
            settled = m.throttleStep(settled, 40, 0.1);
        }
        assertThat(settled).isCloseTo(0.6, within(1e-9));
        assertThat(m.throttleTarget(90)).as("throttle cannot go below fmin").isEqualTo(0.375);
        assertThat(m.throttleStep(0.6, 0, 0.5)).as("releasing ramps back up").isCloseTo(1 - 0.4 / Math.E, within(1e-9));
    }

    @Test
    void nodeFrequencyIsTheLowerOfCapAndThrottle() {
        SimNode n = new SimNode(0, "n", new NodeType("model", m), 0, Simulation.EPOCH);
        n.usedCores = 16;
        n.capWatts = 260;
        n.refresh(1);
        assertThat(n.f).isCloseTo(0.62431, within(1e-4));
        assertThat(n.powerWatts).isCloseTo(260, within(1e-6));
        assertThat(n.dirty).isFalse();
        n.throttlePct = 50;
        n.refresh(5);
        assertThat(n.f).as("5 s = 10 τ: throttle settled at 0.5, below the cap's 0.624").isCloseTo(0.5, within(1e-4));
        assertThat(n.powerWatts).isCloseTo(m.power(1, n.f), within(1e-9)).isLessThan(260);
    }

    @Test
    void jobProgressDependsOnFrequencyAndSensitivity() {
        assertThat(NodeModel.jobSpeed(4, 1.0, 1.0)).isEqualTo(4.0);
        assertThat(NodeModel.jobSpeed(4, 1.0, 0.5)).isEqualTo(2.0);
        assertThat(NodeModel.jobSpeed(4, 0.0, 0.5)).as("insensitive job ignores f").isEqualTo(4.0);
        assertThat(NodeModel.jobSpeed(4, 0.8, 0.625)).isCloseTo(2.8, within(1e-12));
    }

    /**
     * The calibrated scenarios set each server type's eco cap at its knee for memory-bound work (docs/simulation.md):
     * the watts in the scenario table are the model's knee caps, rounded to the watt.
     */
    @Test
    void theCalibratedScenariosEcoCapsAreTheTypesKneeCaps() {
        double memoryBound = Double.parseDouble(Main.SCENARIOS.get("day").get("workload.memoryBoundSensitivityMin"));
        Map<String, Double> knee = new java.util.TreeMap<>();
        for (String type : java.util.List.of("dell-r640", "dell-r940")) {
            knee.put(type, (double) Math.round(NodeCatalog.types().get(type).model().kneeCapWatts(memoryBound)));
        }
        assertThat(Double.parseDouble(Main.SCENARIOS.get("day").get("planner.ecoCapWatts"))).isEqualTo(knee.get("dell-r640"));
        for (String scenario : java.util.List.of("day-mixed", "hetero")) {
            Map<String, Double> byType = new java.util.TreeMap<>();
            for (String entry : Main.SCENARIOS.get(scenario).get("planner.ecoCapWattsByType").split(",")) {
                byType.put(entry.split("=")[0], Double.parseDouble(entry.split("=")[1]));
            }
            assertThat(byType).as(scenario).containsAllEntriesOf(knee);
        }
    }
}
