package io.joulie.operator.config;

import io.joulie.planner.PlannerSetting;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The planning settings the operator's environment sets, found to be reported (decision 136). */
class PlanningVariableTest {

    @Test
    void bothNamesOfASettingAreFoundWithTheFieldToUseAndDeploymentVariablesAreNot() {
        Map<String, String> env = Map.of("POLICY_TYPE", "queue_aware_v1", "JOULIE_ECO_CAP_WATTS_BY_TYPE", "a=100",
                "NODE_SELECTOR", "x=y", "LEADER_ELECTION", "false", "POD_NAME", "p", "JOULIE_NODE_SELECTOR", "x=z");

        assertThat(PlanningVariable.in(env::get)).containsExactly(new PlanningVariable("POLICY_TYPE", "type"),
                new PlanningVariable("JOULIE_ECO_CAP_WATTS_BY_TYPE", "ecoCapWattsByType"));
        assertThat(PlanningVariable.in(Map.<String, String>of()::get)).isEmpty();
    }

    @Test
    void everySettingHasBothNames() {
        for (PlannerSetting<?> s : PlannerSetting.ALL) {
            String quarkus = PlanningVariable.quarkusName(s);
            assertThat(PlanningVariable.in(Map.of(s.env(), "1", quarkus, "1")::get)).as(s.env())
                    .containsExactly(new PlanningVariable(s.env(), s.specField()), new PlanningVariable(quarkus, s.specField()));
        }
        assertThat(PlanningVariable.quarkusName(PlannerSetting.GPU_ECO_CAP_WATTS_PER_GPU))
                .isEqualTo("JOULIE_GPU_ECO_CAP_WATTS_PER_GPU");
    }

    @Test
    void theStatusNamesEveryVariableWithItsField() {
        assertThat(PlanningVariable.summary(List.of(new PlanningVariable("STATIC_HP_FRAC", "staticHpFrac"),
                new PlanningVariable("SETTLE_TIME", "settleTime")))).isEqualTo("planning settings are set in the operator's "
                + "environment, honoured under spec.policy until the next release; set them in spec.policy instead: "
                + "STATIC_HP_FRAC -> spec.policy.staticHpFrac, SETTLE_TIME -> spec.policy.settleTime");
    }
}
