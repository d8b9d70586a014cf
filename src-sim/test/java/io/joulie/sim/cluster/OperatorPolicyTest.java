package io.joulie.sim.cluster;

import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.planner.PolicyType;
import io.joulie.sim.SimConfig;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class OperatorPolicyTest {
    @Test
    void everyPlannerSettingIsASpecPolicyFieldWithDurationsOnWallTime() {
        // the R940's eco cap (507 W) needs a performance cap above it: 1000 W, as the calibrated scenarios set
        SimConfig c = SimConfig.of(Map.of("planner.escalation", "force", "planner.downgradeTimeoutSeconds", "1800",
                "planner.performanceCapWatts", "1000", "planner.ecoCapWattsByType", "dell-r940=507,dell-r640=260"));
        JoulieSpec.Policy p = OperatorPolicy.of(c.planner().withPolicy(PolicyType.QUEUE_AWARE_V1), c.tickSeconds(),
                s -> Duration.ofMillis(Math.round(s * 1000 / 60)));

        assertThat(p.reconcileInterval()).isEqualTo("1s");
        assertThat(p.downgradeTimeout()).isEqualTo("30s");
        assertThat(p.type()).isEqualTo("queue_aware_v1");
        assertThat(p.downgradeEscalation()).isEqualTo("force");
        assertThat(p.staticHpFrac()).isEqualTo(0.75);
        assertThat(p.queueHpBaseFrac()).isEqualTo(0.7);
        assertThat(p.queueHpMin()).isEqualTo(2);
        assertThat(p.queueHpMax()).isEqualTo(5);
        assertThat(p.queuePerfPerHpNode()).isEqualTo(15);
        assertThat(p.performanceCapWatts()).isEqualTo(1000.0);
        assertThat(p.performanceCapPercent()).as("the watts are the cap: one unit per cap in spec.policy").isNull();
        assertThat(p.ecoCapWatts()).isEqualTo(260.0);
        assertThat(p.ecoCapPercent()).isNull();
        assertThat(p.demandHeadroomFrac()).isEqualTo(0.2);
        assertThat(p.ecoCapWattsByType()).containsExactlyInAnyOrderEntriesOf(Map.of("dell-r640", 260.0, "dell-r940", 507.0));
    }

    @Test
    void theResourceKeepsTheAgentsToTheTwinsNodesAndAsksForNoMonitoring() {
        Joulie j = OperatorPolicy.resource(JoulieSpec.Policy.of("type", "static_partition"));

        assertThat(j.getMetadata().getName()).isEqualTo(Joulie.ACTIVE_NAME);
        assertThat(j.getSpec().agent().nodeSelector()).containsExactlyEntriesOf(Map.of(TwinObjects.SIM_LABEL, "true"));
        assertThat(j.getSpec().monitoring().serviceMonitorEnabled()).isFalse();
        assertThat(j.getSpec().monitoring().grafanaDashboardEnabled()).isFalse();
        assertThat(j.getSpec().monitoring().prometheusRulesEnabled()).isFalse();
        assertThat(j.getSpec().policy().type()).isEqualTo("static_partition");
    }
}
