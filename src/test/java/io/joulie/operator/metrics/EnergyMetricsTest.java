package io.joulie.operator.metrics;

import io.joulie.api.v1alpha1.PowerState;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.ManagedNode;
import io.joulie.planner.Telemetry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The counters the energy-saved panels read, fed tick by tick as the leader's loop does. */
class EnergyMetricsTest {
    static final Instant T0 = Instant.parse("2026-11-28T12:00:00Z");
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final Map<String, Double> requested = new HashMap<>();
    final EnergyMetrics energy = new EnergyMetrics(registry, n -> requested.getOrDefault(n, 0.0));

    static ManagedNode node(String name, PowerState state) {
        return new ManagedNode(name, Map.of(), false, state, T0, List.of(), 32, null, null, null, List.of(), "");
    }

    static ClusterContext tick(int minute, Telemetry telemetry, ManagedNode... nodes) {
        return new ClusterContext(T0.plusSeconds(60L * minute), List.of(nodes), 0, List.of(), List.of(), telemetry);
    }

    static Telemetry power(Map<String, Double> watts) {
        Map<String, Telemetry.NodeSamples> samples = new HashMap<>();
        watts.forEach((n, w) -> samples.put(n, new Telemetry.NodeSamples(Optional.of(new Telemetry.Sample(w, Duration.ZERO)),
                Optional.empty())));
        return Telemetry.available(samples, OptionalDouble.empty(), OptionalDouble.empty());
    }

    double count(String name, String... tags) {
        return registry.get(name).tags(tags).counter().count();
    }

    @Test
    void theCountersExistAtZeroAndWithoutTelemetryStayThere() {
        assertThat(count(EnergyMetrics.SAVED)).isZero();
        assertThat(count(EnergyMetrics.USED, "profile", "performance")).isZero();
        assertThat(count(EnergyMetrics.USED, "profile", "eco")).isZero();
        assertThat(count(EnergyMetrics.UNESTIMATED)).isZero();
        energy.record(tick(0, Telemetry.DISABLED, node("a", PowerState.ActiveEco)), Duration.ofMinutes(1));
        energy.record(tick(1, Telemetry.DISABLED, node("a", PowerState.ActiveEco)), Duration.ofMinutes(1));
        assertThat(count(EnergyMetrics.UNESTIMATED)).isZero();
    }

    @Test
    void aNodeLearntAtPerformanceCountsItsSavingInEcoAtTheSameRequests() {
        requested.put("a", 16.0); // half of its 32 cores
        energy.record(tick(0, power(Map.of("a", 300.0)), node("a", PowerState.ActivePerformance)), Duration.ofMinutes(1));
        energy.record(tick(1, power(Map.of("a", 300.0)), node("a", PowerState.ActivePerformance)), Duration.ofMinutes(1));
        energy.record(tick(2, power(Map.of("a", 220.0)), node("a", PowerState.ActiveEco)), Duration.ofMinutes(1));
        assertThat(count(EnergyMetrics.USED, "profile", "performance")).isCloseTo(300 * 60, within(1e-6));
        assertThat(count(EnergyMetrics.USED, "profile", "eco")).isCloseTo(220 * 60, within(1e-6));
        assertThat(count(EnergyMetrics.SAVED)).isCloseTo(80 * 60, within(1e-6));

        requested.put("a", 2.0); // the load fell: nothing learnt there, so no saving is claimed
        energy.record(tick(3, power(Map.of("a", 120.0)), node("a", PowerState.ActiveEco)), Duration.ofMinutes(1));
        assertThat(count(EnergyMetrics.SAVED)).isCloseTo(80 * 60, within(1e-6));
        assertThat(count(EnergyMetrics.UNESTIMATED)).isEqualTo(60);
    }
}
