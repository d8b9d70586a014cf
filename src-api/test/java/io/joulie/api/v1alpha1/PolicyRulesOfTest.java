package io.joulie.api.v1alpha1;

import org.junit.jupiter.api.Test;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code status.effectivePolicy}: the settings in force with the rules in force, joined by field name. */
class PolicyRulesOfTest {
    static final JoulieSpec.Policy RULES = JoulieSpec.Policy.of(Map.of("timeZone", "Europe/Berlin", "staticHpFrac", 0.9,
            "schedules", List.of(Map.of("days", List.of("Mon-Fri"), "start", "08:00", "end", "18:00", "performanceShare", 0.8)),
            "powerBudget", Map.of("watts", 1300.0), "hotspots", Map.of("thresholdCelsius", 80.0)));

    @Test
    void theSettingsStayAndTheRulesAreTheOthers() {
        JoulieSpec.Policy settings = JoulieSpec.Policy.of(Map.of("type", "queue_aware_v1", "staticHpFrac", 0.5,
                "ecoCapWattsByType", Map.of("big", 500.0), "queueHpMin", 2, "reconcileInterval", "30s",
                "timeZone", "UTC", "powerBudget", Map.of("watts", 5.0)));

        JoulieSpec.Policy joined = settings.withRulesOf(RULES);

        assertThat(joined.type()).isEqualTo("queue_aware_v1");
        assertThat(joined.staticHpFrac()).as("a setting is never taken from the rules' resource").isEqualTo(0.5);
        assertThat(joined.queueHpMin()).isEqualTo(2);
        assertThat(joined.reconcileInterval()).isEqualTo("30s");
        assertThat(joined.ecoCapWattsByType()).isEqualTo(Map.of("big", 500.0));
        assertThat(joined.timeZone()).isEqualTo("Europe/Berlin");
        assertThat(joined.schedules()).isEqualTo(RULES.schedules());
        assertThat(joined.powerBudget()).isEqualTo(RULES.powerBudget());
        assertThat(joined.hotspots()).isEqualTo(RULES.hotspots());
        assertThat(joined.telemetry()).as("unset in the rules: unset").isNull();
        assertThat(settings.withRulesOf(null)).isSameAs(settings);
    }

    @Test
    void theRuleFieldsAreTheRecordsLastFields() {
        List<String> components = Arrays.stream(JoulieSpec.Policy.class.getRecordComponents()).map(RecordComponent::getName)
                .toList();

        assertThat(components.subList(components.size() - JoulieSpec.Policy.RULE_FIELDS.size(), components.size()))
                .isEqualTo(JoulieSpec.Policy.RULE_FIELDS);
    }
}
