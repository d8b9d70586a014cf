package io.joulie.operator.metrics;

import io.joulie.planner.RuleReport;
import io.joulie.planner.Telemetry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The budget's gauges carry no sentinel: a _configured gauge says whether the others mean anything (decision 203). */
class RuleMetricsTest {
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final RuleMetrics metrics = new RuleMetrics(registry);

    double gauge(String name) {
        return registry.get("joulie.rules." + name).gauge().value();
    }

    static RuleReport budget(double estimate, String basis, boolean met) {
        return new RuleReport(Optional.empty(), Telemetry.Status.AVAILABLE, "", List.of(), 0,
                Optional.of(new RuleReport.Budget(1300, estimate, basis, met, 1)));
    }

    @Test
    void withoutABudgetEveryValueIsFiniteAndConfiguredIsZero() {
        metrics.record(RuleReport.NONE);
        assertThat(gauge("power.budget.configured")).isZero();
        assertThat(gauge("power.budget.watts")).isZero();
        assertThat(gauge("power.estimate.watts")).isZero();
        assertThat(gauge("power.budget.met")).isEqualTo(1);
        assertThat(gauge("power.budget.held")).isZero();
    }

    @Test
    void aHeldBudgetKeepsTheLastEstimateAndSaysItIsHeld() {
        metrics.record(budget(1250, "measured", true));
        assertThat(gauge("power.budget.configured")).isEqualTo(1);
        assertThat(gauge("power.budget.watts")).isEqualTo(1300);
        assertThat(gauge("power.estimate.watts")).isEqualTo(1250);
        assertThat(gauge("power.budget.held")).isZero();

        metrics.record(budget(Double.NaN, "held", true));
        assertThat(gauge("power.estimate.watts")).isEqualTo(1250);
        assertThat(gauge("power.budget.held")).isEqualTo(1);

        assertThat(metrics.record(budget(1400, "measured", false))).as("a Warning is due when it becomes unmet").isTrue();
        assertThat(gauge("power.budget.met")).isZero();
        assertThat(gauge("power.estimate.watts")).isEqualTo(1400);
        assertThat(registry.getMeters()).allSatisfy(m -> m.measure().forEach(x -> assertThat(x.getValue()).isFinite()));
    }
}
