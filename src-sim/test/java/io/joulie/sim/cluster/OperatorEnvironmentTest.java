package io.joulie.sim.cluster;

import io.joulie.planner.Escalation;
import io.joulie.planner.PolicyType;
import io.joulie.sim.SimConfig;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class OperatorEnvironmentTest {
    @Test
    void everyPlannerSettingBecomesTheOperatorsVariableWithDurationsOnWallTime() {
        // the R940's eco cap (507 W) needs a performance cap above it: 1000 W, as the calibrated scenarios set
        SimConfig c = SimConfig.of(Map.of("planner.escalation", "force", "planner.downgradeTimeoutSeconds", "1800",
                "planner.performanceCapWatts", "1000", "planner.ecoCapWattsByType", "dell-r940=507,dell-r640=260"));
        Map<String, String> env = OperatorEnvironment.of(c.planner().withPolicy(PolicyType.QUEUE_AWARE_V1), c.tickSeconds(),
                s -> Duration.ofMillis(Math.round(s * 1000 / 60)));
        assertThat(env).containsEntry("RECONCILE_INTERVAL", "1s").containsEntry("DOWNGRADE_TIMEOUT", "30s")
                .containsEntry("POLICY_TYPE", "queue_aware_v1").containsEntry("DOWNGRADE_ESCALATION", Escalation.FORCE.configValue())
                .containsEntry("STATIC_HP_FRAC", "0.75").containsEntry("QUEUE_HP_BASE_FRAC", "0.7")
                .containsEntry("QUEUE_HP_MIN", "2").containsEntry("QUEUE_HP_MAX", "5").containsEntry("QUEUE_PERF_PER_HP_NODE", "15")
                .containsEntry("PERFORMANCE_CAP_WATTS", "1000.0").containsEntry("ECO_CAP_WATTS", "260.0")
                .containsEntry("DEMAND_HEADROOM_FRAC", "0.2")
                .containsEntry("ECO_CAP_WATTS_BY_TYPE", "dell-r640=260.0,dell-r940=507.0");
    }
}
