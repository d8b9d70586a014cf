package io.joulie.operator.config;

import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.planner.Escalation;
import io.joulie.planner.PlannerSettings;
import io.joulie.planner.PolicyType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

class PolicyOverlayTest {
    static final PlannerSettings BASE = PlannerSettings.defaults();

    static JoulieSpec.Policy policy(String type, Double staticFrac, Integer min, Integer max, Double perfCap, Double ecoCap,
                                    String escalation, String timeout, String interval) {
        return JoulieSpec.Policy.of("type", type, "staticHpFrac", staticFrac, "queueHpMin", min, "queueHpMax", max,
                "performanceCapWatts", perfCap, "ecoCapWatts", ecoCap, "downgradeEscalation", escalation,
                "downgradeTimeout", timeout, "reconcileInterval", interval);
    }

    @Test
    void noPolicyMeansTheDefaults() {
        PolicyOverlay.Result r = PolicyOverlay.apply(BASE, null);
        assertThat(r.valid()).isTrue();
        assertThat(r.settings()).contains(BASE);
        assertThat(PolicyOverlay.apply(BASE, policy(null, null, null, null, null, null, null, null, null)).settings())
                .contains(BASE);
    }

    @Test
    void setFieldsOverrideAndTheRestStays() {
        PlannerSettings s = PolicyOverlay.apply(BASE, policy("queue_aware_v1", null, 2, 5, 450.0, 200.0, "evict", "10m", "30s"))
                .settings().orElseThrow();
        assertThat(s.policyType()).isEqualTo(PolicyType.QUEUE_AWARE_V1);
        assertThat(s.queueHpMin()).isEqualTo(2);
        assertThat(s.queueHpMax()).isEqualTo(5);
        assertThat(s.performanceCapWatts()).hasValue(450.0);
        assertThat(s.ecoCapWatts()).hasValue(200.0);
        assertThat(s.escalation()).isEqualTo(Escalation.EVICT);
        assertThat(s.downgradeTimeout()).isEqualTo(Duration.ofMinutes(10));
        assertThat(s.reconcileInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.staticHpFrac()).isEqualTo(BASE.staticHpFrac());
        assertThat(s.queuePerfPerHpNode()).isEqualTo(BASE.queuePerfPerHpNode());
    }

    @Test
    void everyInvalidFieldIsNamedAndNoSettingsAreProduced() {
        PolicyOverlay.Result r = PolicyOverlay.apply(BASE,
                policy("fastest", 1.5, 7, 3, 0.0, Double.NaN, "panic", "-1m", "0s"));
        assertThat(r.valid()).isFalse();
        assertThat(r.settings()).isEmpty();
        assertThat(r.errors()).containsExactly(
                "spec.policy.type 'fastest' is not a known policy (static_partition, queue_aware_v1, demand_sized_v1, rule_swap_v1)",
                "spec.policy.staticHpFrac = 1.5: must be between 0 and 1",
                "spec.policy.queueHpMin (7) must not exceed queueHpMax (3)",
                "spec.policy.performanceCapWatts = 0.0: a power cap must be greater than 0 watts (or none)",
                "spec.policy.ecoCapWatts = NaN: a power cap must be greater than 0 watts (or none)",
                "spec.policy.downgradeEscalation 'panic' must be hold, force or evict",
                "spec.policy.downgradeTimeout = '-1m': '-1m' is not a duration (e.g. 30s, 1m, 1h30m, PT1M)",
                "spec.policy.reconcileInterval = '0s': must be greater than 0");
        assertThat(PolicyOverlay.apply(BASE, policy(null, null, null, null, null, null, null, "soon", null)).errors())
                .singleElement().asString().startsWith("spec.policy.downgradeTimeout = 'soon': ");
    }

    @Test
    void demandSizingFieldsOverlayAndAreValidated() {
        JoulieSpec.Policy p = JoulieSpec.Policy.of("type", "demand_sized_v1", "demandHeadroomFrac", 0.5,
                "ecoCapWattsByType", Map.of("dell-r640", 260.0));
        PlannerSettings s = PolicyOverlay.apply(BASE, p).settings().orElseThrow();
        assertThat(s.policyType()).isEqualTo(PolicyType.DEMAND_SIZED_V1);
        assertThat(s.demandHeadroomFrac()).isEqualTo(0.5);
        assertThat(s.ecoCapWattsByType()).containsExactly(Map.entry("dell-r640", 260.0));
        JoulieSpec.Policy d = PolicyOverlay.describe(s);
        assertThat(d.demandHeadroomFrac()).isEqualTo(0.5);
        assertThat(d.ecoCapWattsByType()).containsExactly(Map.entry("dell-r640", 260.0));
        assertThat(PolicyOverlay.apply(PlannerSettings.defaults(), d).settings()).contains(s);
        assertThat(PolicyOverlay.apply(BASE, JoulieSpec.Policy.of("demandHeadroomFrac", -1.0,
                "ecoCapWattsByType", new TreeMap<>(Map.of("bad type", 100.0, "r640", 0.0)))).errors()).containsExactly(
                "spec.policy.demandHeadroomFrac = -1.0: must be at least 0",
                "spec.policy.ecoCapWattsByType.bad type = 100.0: 'bad type' is not a node type (a label value)",
                "spec.policy.ecoCapWattsByType.r640 = 0.0: a power cap must be greater than 0 watts");
    }

    @Test
    void describeWritesEveryFieldAndReadsBackToTheSameSettings() {
        PlannerSettings s = PolicyOverlay.apply(BASE, policy("queue_aware_v1", 0.25, 1, 9, 480.0, 150.0, "force", "90s", "2m"))
                .settings().orElseThrow();
        JoulieSpec.Policy d = PolicyOverlay.describe(s);
        assertThat(d.type()).isEqualTo("queue_aware_v1");
        assertThat(d.downgradeEscalation()).isEqualTo("force");
        assertThat(d.downgradeTimeout()).isEqualTo("1m30s");
        assertThat(d.reconcileInterval()).isEqualTo("2m");
        assertThat(PolicyOverlay.apply(PlannerSettings.defaults().withPolicy(PolicyType.RULE_SWAP_V1), d).settings()).contains(s);
    }
}
