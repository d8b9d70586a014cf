package io.joulie.agent.metrics;

import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.Observed;
import io.joulie.agent.control.cpu.CpuBackend;
import io.joulie.agent.control.gpu.GpuBackend;
import io.joulie.api.v1alpha1.ControlResult;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

import static org.assertj.core.api.Assertions.assertThat;

class AgentMetricsTest {

    @Test
    void aNodesErrorCountersExistAtZeroFromItsFirstReadingAndLeaveWithTheNode() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AgentMetrics metrics = new AgentMetrics(registry);
        metrics.packagePower("n1", 60, 0);
        for (String kind : new String[] {"control", "telemetry", "status", "labels", "reconcile"}) {
            assertThat(registry.get("joulie.agent.errors").tags("node", "n1", "kind", kind).counter().count())
                    .as("errors kind=%s", kind).isZero();
        }
        metrics.error("n1", ErrorKind.CONTROL);
        assertThat(registry.get("joulie.agent.errors").tags("node", "n1", "kind", "control").counter().count()).isEqualTo(1);
        metrics.forget("n1");
        assertThat(registry.find("joulie.agent.errors").counters()).isEmpty();
    }

    @Test
    void theEnergyCounterExistsAtZeroBeforeAnyJoulesSoRateSeesTheFirstOnes() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AgentMetrics metrics = new AgentMetrics(registry);
        metrics.packagePower("n1", 60, 0); // the first reading has no interval to count energy over
        assertThat(registry.get("joulie.agent.package.energy.joules").tag("node", "n1").counter().count()).isZero();
        metrics.packagePower("n1", 60, 120);
        assertThat(registry.get("joulie.agent.package.power.watts").tag("node", "n1").gauge().value()).isEqualTo(60);
        metrics.packagePower("n1", Double.NaN, 0);
        assertThat(registry.get("joulie.agent.package.energy.joules").tag("node", "n1").counter().count()).isEqualTo(120.0);
        assertThat(registry.find("joulie.agent.package.power.watts").gauges()).as("an unknown power is no series, not NaN").isEmpty();
        metrics.packagePower("n1", 65, 130);
        assertThat(registry.get("joulie.agent.package.power.watts").tag("node", "n1").gauge().value()).isEqualTo(65);
        metrics.forget("n1");
        assertThat(registry.find("joulie.agent.package.energy.joules").counters()).isEmpty();
    }

    @Test
    void anOutcomeSetsTheBackendCapAndThrottleGaugesAndCountsOnlyAnActionWithAKind() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AgentMetrics metrics = new AgentMetrics(registry);
        metrics.outcome("n1", Optional.empty(), new ControlOutcome(CpuBackend.NONE, ControlResult.NONE, "no control", Map.of()));
        assertThat(registry.find("joulie.agent.cap.per.package.watts").gauges()).as("no limit read back yet: no series").isEmpty();
        ControlOutcome applied = new ControlOutcome(CpuBackend.POWERCAP, ControlResult.APPLIED, "applied",
                Map.of(Observed.CAP_WATTS_PER_PACKAGE, 60.0, Observed.CAP_WATTS, 120.0));
        metrics.outcome("n1", Optional.empty(), applied);
        assertThat(registry.find("joulie.agent.actions").counters()).isEmpty();
        assertThat(registry.get("joulie.agent.cap.per.package.watts").tag("node", "n1").gauge().value()).isEqualTo(60.0);
        assertThat(registry.get("joulie.agent.backend").tags("node", "n1", "backend", "powercap").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("joulie.agent.backend").tags("node", "n1", "backend", "dvfs").gauge().value()).isZero();

        metrics.outcome("n1", Optional.of(Action.REAPPLY), applied);
        assertThat(registry.get("joulie.agent.actions").tags("node", "n1", "kind", "reapply", "backend", "powercap", "result", "applied")
                .counter().count()).isEqualTo(1);

        metrics.outcome("n1", Optional.of(Action.APPLY), new ControlOutcome(CpuBackend.DVFS, ControlResult.ERROR, "cpufreq write failed",
                Map.of(Observed.THROTTLE_PCT, 30.0)));
        assertThat(registry.get("joulie.agent.throttle.ratio").tag("node", "n1").gauge().value()).isEqualTo(0.3);
        assertThat(registry.get("joulie.agent.cap.per.package.watts").tag("node", "n1").gauge().value()).isEqualTo(60.0);
        assertThat(registry.get("joulie.agent.backend").tags("node", "n1", "backend", "dvfs").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("joulie.agent.errors").tags("node", "n1", "kind", "control").counter().count()).isEqualTo(1);
    }

    @Test
    void aBoardsGaugesFollowItsReadingsAndItsEnergyCountsOnlyWhatTheCounterGained() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AgentMetrics metrics = new AgentMetrics(registry);
        metrics.gpu("n1", 0, OptionalDouble.of(420), OptionalDouble.of(300), OptionalDouble.of(1000));
        assertThat(registry.get("joulie.agent.gpu.power.watts").tags("node", "n1", "gpu", "0").gauge().value()).isEqualTo(300);
        assertThat(registry.get("joulie.agent.gpu.cap.watts").tags("node", "n1", "gpu", "0").gauge().value()).isEqualTo(420);
        assertThat(registry.get("joulie.agent.gpu.energy.joules").tags("node", "n1", "gpu", "0").counter().count())
                .as("a first reading is a start, not energy; the counter exists from it, so rate() sees the first joules").isZero();
        metrics.gpu("n1", 0, OptionalDouble.of(420), OptionalDouble.empty(), OptionalDouble.of(1250));
        metrics.gpu("n1", 0, OptionalDouble.of(420), OptionalDouble.of(310), OptionalDouble.of(40)); // driver reloaded: starts again
        metrics.gpu("n1", 0, OptionalDouble.of(420), OptionalDouble.of(310), OptionalDouble.of(100));
        assertThat(registry.get("joulie.agent.gpu.energy.joules").tags("node", "n1", "gpu", "0").counter().count()).isEqualTo(310);
        metrics.gpu("n1", 0, OptionalDouble.empty(), OptionalDouble.empty(), OptionalDouble.empty());
        assertThat(registry.find("joulie.agent.gpu.power.watts").gauges()).as("a failed read is no series, not NaN").isEmpty();
        assertThat(registry.find("joulie.agent.gpu.cap.watts").gauges()).isEmpty();
        metrics.gpu("n1", 0, OptionalDouble.of(400), OptionalDouble.of(290), OptionalDouble.of(150));
        assertThat(registry.get("joulie.agent.gpu.cap.watts").tags("node", "n1", "gpu", "0").gauge().value()).isEqualTo(400);

        metrics.gpuOutcome("n1", Optional.of(Action.APPLY), new ControlOutcome(GpuBackend.NVML, ControlResult.ERROR, "GPU 0: ...", Map.of()));
        assertThat(registry.get("joulie.agent.gpu.actions").tags("node", "n1", "kind", "apply", "backend", "nvml", "result", "error")
                .counter().count()).isEqualTo(1);
        assertThat(registry.get("joulie.agent.gpu.backend").tags("node", "n1", "backend", "nvml").gauge().value()).isEqualTo(1);
        assertThat(registry.get("joulie.agent.errors").tags("node", "n1", "kind", "control").counter().count()).isEqualTo(1);
        metrics.forget("n1");
        assertThat(registry.find("joulie.agent.gpu.power.watts").gauges()).isEmpty();
    }
}
