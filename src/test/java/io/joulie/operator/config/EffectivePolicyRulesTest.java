package io.joulie.operator.config;

import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.api.v1alpha1.PolicyRulesSpec;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Settings and rules of spec.policy are one unit: an error in either keeps both in force. */
class EffectivePolicyRulesTest {
    final EffectivePolicy effective = new EffectivePolicy(new OperatorSettings(new TestConfig()));

    static Joulie joulie(double frac, Double budget, List<PolicyRulesSpec.Schedule> schedules) {
        Joulie j = new Joulie();
        j.getMetadata().setName("joulie");
        j.setSpec(new JoulieSpec(null, JoulieSpec.Policy.of("type", "static_partition", "staticHpFrac", frac,
                "schedules", schedules, "powerBudget", budget == null ? null : new PolicyRulesSpec.PowerBudget(budget)),
                null));
        return j;
    }

    @Test
    void anInvalidRuleKeepsTheSettingsAndRulesInForce() {
        var good = effective.resolve(joulie(0.7, 4000.0, null));
        assertThat(good.errors()).isEmpty();
        assertThat(good.rules().rules().budgetWatts()).hasValue(4000);
        assertThat(good.describe().powerBudget().watts()).isEqualTo(4000.0);
        assertThat(good.describe().staticHpFrac()).isEqualTo(0.7);

        var bad = effective.resolve(joulie(0.2, 3000.0,
                List.of(new PolicyRulesSpec.Schedule("x", List.of("Someday"), "08:00", "18:00", null, 0.5, null, null))));

        assertThat(bad.errors()).containsExactly(
                "spec.policy.schedules[0].days = 'Someday': not a day or range of days (Mon..Sun, e.g. Mon-Fri)");
        assertThat(bad.settings().staticHpFrac()).isEqualTo(0.7);
        assertThat(bad.rules().rules().budgetWatts()).hasValue(4000);
        assertThat(bad.describe().powerBudget().watts()).isEqualTo(4000.0);
    }

    @Test
    void removingTheRulesReturnsToNone() {
        effective.resolve(joulie(0.7, 4000.0, null));

        var none = effective.resolve(joulie(0.7, null, null));

        assertThat(none.rules().rules().isEmpty()).isTrue();
        assertThat(none.describe().powerBudget()).isNull();
    }
}
