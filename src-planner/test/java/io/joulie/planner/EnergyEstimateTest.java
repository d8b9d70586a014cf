package io.joulie.planner;

import io.joulie.api.v1alpha1.PowerState;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalDouble;

import static io.joulie.api.v1alpha1.PowerState.ActiveEco;
import static io.joulie.api.v1alpha1.PowerState.ActivePerformance;
import static io.joulie.api.v1alpha1.PowerState.DrainingPerformance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class EnergyEstimateTest {
    static final Instant T0 = Instant.parse("2026-11-28T12:00:00Z");
    final EnergyEstimate estimate = new EnergyEstimate();

    static EnergyEstimate.Sample s(String node, PowerState state, double watts, double load) {
        return new EnergyEstimate.Sample(node, state, Double.isNaN(watts) ? OptionalDouble.empty() : OptionalDouble.of(watts), load);
    }

    EnergyEstimate.Step at(int minute, EnergyEstimate.Sample... samples) {
        return estimate.record(T0.plusSeconds(60L * minute), Duration.ofMinutes(2), List.of(samples));
    }

    @Test
    void aNodeLearntAtPerformanceSavesTheDifferenceAtTheSameLoadInEco() {
        assertThat(at(0, s("a", ActivePerformance, 300, 0.8))).isEqualTo(EnergyEstimate.Step.NONE); // no interval yet
        EnergyEstimate.Step perf = at(1, s("a", DrainingPerformance, 300, 0.85));
        assertThat(perf.performanceJoules()).isCloseTo(300 * 60, within(1e-6));
        assertThat(perf.savedJoules()).isZero();

        EnergyEstimate.Step eco = at(2, s("a", ActiveEco, 200, 0.82)); // same bucket (0.8-0.9): 300 W learnt there
        assertThat(eco.savedJoules()).isCloseTo(100 * 60, within(1e-6));
        assertThat(eco.ecoJoules()).isCloseTo(200 * 60, within(1e-6));
        assertThat(eco.unestimatedSeconds()).isZero();
    }

    /** The bias a naive estimate has: a node goes eco because its load fell; its lower power is not a saving. */
    @Test
    void aNodeWhoseLoadFellBeforeEcoSavesNothingItsReferenceDoesNotCover() {
        at(0, s("a", ActivePerformance, 400, 0.9));
        at(1, s("a", ActivePerformance, 400, 0.9));
        EnergyEstimate.Step idle = at(2, s("a", ActiveEco, 120, 0.05)); // idle now: nothing learnt at this load
        assertThat(idle.savedJoules()).isZero();
        assertThat(idle.unestimatedSeconds()).isEqualTo(60);

        // learnt at idle while at performance too (130 W), an idle eco node at 120 W saves 10 W, not 280 W
        at(3, s("a", ActivePerformance, 130, 0.05));
        EnergyEstimate.Step learnt = at(4, s("a", ActiveEco, 120, 0.05));
        assertThat(learnt.savedJoules()).isCloseTo(10 * 60, within(1e-6));
    }

    @Test
    void aLoadBetweenLearntLoadsIsInterpolatedAndOneOutsideThemIsNotEstimated() {
        at(0, s("a", ActivePerformance, 100, 0.05)); // bucket 0
        at(1, s("a", ActivePerformance, 300, 0.45)); // bucket 4
        assertThat(estimate.reference("a", 2)).hasValue(200); // half-way between buckets 0 and 4
        EnergyEstimate.Step between = at(2, s("a", ActiveEco, 150, 0.25)); // bucket 2
        assertThat(between.savedJoules()).isCloseTo(50 * 60, within(1e-6));
        EnergyEstimate.Step beyond = at(3, s("a", ActiveEco, 250, 0.95)); // bucket 9: above every learnt load
        assertThat(beyond.savedJoules()).isZero();
        assertThat(beyond.unestimatedSeconds()).isEqualTo(60);
        assertThat(estimate.reference("a", 9)).isEmpty();
    }

    @Test
    void eachBucketIsAWeightedMeanThatFollowsTheNode() {
        at(0, s("a", ActivePerformance, 300, 0.5));
        at(1, s("a", ActivePerformance, 400, 0.5));
        assertThat(estimate.reference("a", 5)).hasValue(300 + EnergyEstimate.WEIGHT * 100);
    }

    @Test
    void aMissingOrAbsurdSampleIsNoEnergyAndTeachesNothing() {
        at(0, s("a", ActivePerformance, 300, 0.5));
        EnergyEstimate.Step bad = at(1, s("a", ActivePerformance, 50_000, 0.5), s("b", ActivePerformance, -3, 0.5),
                s("c", ActiveEco, Double.NaN, 0.5));
        assertThat(bad.performanceJoules()).isZero();
        assertThat(bad.unestimatedSeconds()).as("c: eco without a sample").isEqualTo(60);
        assertThat(estimate.reference("a", 5)).hasValue(300);
        assertThat(estimate.reference("b", 5)).isEmpty();
        EnergyEstimate.Step unknownLoad = at(2, s("a", ActiveEco, 200, Double.NaN));
        assertThat(unknownLoad.savedJoules()).isZero();
        assertThat(unknownLoad.unestimatedSeconds()).isEqualTo(60);
    }

    @Test
    void aGapLongerThanTheLongestIntervalAndTimeGoingBackCountNothing() {
        at(0, s("a", ActivePerformance, 300, 0.5));
        assertThat(at(2, s("a", ActivePerformance, 300, 0.5)).performanceJoules()).as("a slow tick: 2 minutes count")
                .isCloseTo(300 * 120, within(1e-6));
        assertThat(at(60, s("a", ActivePerformance, 300, 0.5)).performanceJoules()).as("an hour without planning").isZero();
        assertThat(at(59, s("a", ActivePerformance, 300, 0.5)).performanceJoules()).as("a clock going back").isZero();
        assertThat(at(61, s("a", ActivePerformance, 300, 0.5)).performanceJoules()).as("from the latest time seen")
                .isCloseTo(300 * 60, within(1e-6));
    }

    @Test
    void aNodeThatLeftIsForgotten() {
        at(0, s("a", ActivePerformance, 300, 0.5), s("b", ActivePerformance, 300, 0.5));
        assertThat(estimate.nodesLearnt()).isEqualTo(2);
        at(1, s("a", ActivePerformance, 300, 0.5));
        assertThat(estimate.nodesLearnt()).isEqualTo(1);
        assertThat(estimate.reference("b", 5)).isEmpty();
    }
}
