package io.joulie.operator.config;

import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.operator.manifests.Manifests;
import io.joulie.planner.PlannerSetting;
import io.joulie.planner.PolicyType;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the operator derives from the planner's settings table, and the places that must agree with it. */
class SettingsTableTest {
    static final List<String> RULE_FIELDS = JoulieSpec.Policy.RULE_FIELDS;

    @Test
    void eachPropertyTakesItsDocumentedVariableElseTheDefault() {
        var source = new DocumentedVariables(Map.of("ECO_CAP_WATTS", "90", "JOULIE_STATIC_HP_FRAC", "0.9")::get);

        assertThat(source.getValue("joulie.eco-cap-watts")).isEqualTo("90");
        assertThat(source.getValue("joulie.static-hp-frac")).as("the standard name is Quarkus's own, not this source's")
                .isEqualTo("0.50");
        assertThat(source.getPropertyNames()).containsExactlyInAnyOrderElementsOf(
                PlannerSetting.ALL.stream().filter(PlannerSetting::inEnvironment).map(PlannerSetting::property).toList());
        assertThat(source.getOrdinal()).as("below application.properties and the environment's standard names").isLessThan(250);
        assertThat(new OperatorConfig.PlannerKeys().get()).containsExactlyInAnyOrderElementsOf(
                PlannerSetting.ALL.stream().filter(PlannerSetting::inEnvironment)
                        .map(s -> s.property().substring("joulie.".length())).toList());
    }

    /** The operator's configuration as SmallRye maps it, over these environment variables and properties. */
    static OperatorConfig config(Map<String, String> env, Map<String, String> properties) {
        Map<String, String> p = new HashMap<>(Map.of("joulie.reserved-label-key", "joulie.io/reserved", "joulie.agent.image", "a"));
        p.putAll(properties);
        return new SmallRyeConfigBuilder().withMapping(OperatorConfig.class)
                .withSources(new DocumentedVariables(env::get), new PropertiesConfigSource(p, "application.properties", 250))
                .build().getConfigMapping(OperatorConfig.class);
    }

    @Test
    void theMappingReadsTheDocumentedVariablesAndRefusesWhatIsNoSetting() {
        var parsed = SettingsParser.parse(config(Map.of("POLICY_TYPE", "queue_aware_v1", "ECO_CAP_WATTS", "90"),
                Map.of("joulie.eco-cap-watts", "80")));
        assertThat(parsed.settings().policyType()).isEqualTo(PolicyType.QUEUE_AWARE_V1);
        assertThat(parsed.settings().ecoCapWatts()).as("a property wins over the documented variable").hasValue(80);
        assertThat(parsed.settings().queueHpMin()).isEqualTo(1);

        assertThatThrownBy(() -> config(Map.of(), Map.of("joulie.eco-cap-watt", "80")))
                .hasMessageContaining("SRCFG00050: joulie.eco-cap-watt");
        assertThatThrownBy(() -> config(Map.of("ECO_CAP_WATTS", ""), Map.of()))
                .hasMessageContaining("SRCFG00040: The config property joulie.eco-cap-watts is defined as the empty String");
    }

    @Test
    void everySpecPolicyFieldIsASettingOrARule() {
        List<String> components = Arrays.stream(JoulieSpec.Policy.class.getRecordComponents()).map(RecordComponent::getName)
                .toList();
        List<String> expected = new ArrayList<>(PlannerSetting.ALL.stream().map(PlannerSetting::specField).toList());
        expected.addAll(RULE_FIELDS);

        assertThat(components).containsExactlyElementsOf(expected);
    }

    @Test
    void theConfigurationDocListsEverySetting() throws IOException {
        String doc = Files.readString(Manifests.repository().resolve("docs/configuration.md"));

        for (PlannerSetting<?> s : PlannerSetting.ALL) {
            String defaultValue = s.defaultText().equals("none") ? "unset" : "`" + s.defaultText() + "`";
            assertThat(doc).as("docs/configuration.md, spec.policy").contains("| `%s` | %s |".formatted(s.specField(), defaultValue));
            if (s.inEnvironment()) {
                assertThat(doc).as("docs/configuration.md, planning variables in the environment")
                        .contains("| `%s` | `%s` |".formatted(s.env(), s.specField()));
            }
        }
    }
}
