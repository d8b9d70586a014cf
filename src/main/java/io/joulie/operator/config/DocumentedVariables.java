package io.joulie.operator.config;

import io.joulie.planner.PlannerSetting;
import org.eclipse.microprofile.config.spi.ConfigSource;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Gives every planner setting's {@code joulie.*} property the value of its documented environment variable
 * ({@code joulie.policy-type} ← {@code POLICY_TYPE}), else its documented default, from the settings table. Its
 * ordinal is below application.properties (250): the standard names ({@code JOULIE_POLICY_TYPE}, system properties,
 * a test profile's {@code %test.} lines) win over the documented variable.
 */
public class DocumentedVariables implements ConfigSource {
    static final int ORDINAL = 240;

    private final Map<String, String> properties;

    public DocumentedVariables() {
        this(System::getenv);
    }

    DocumentedVariables(Function<String, String> environment) {
        Map<String, String> p = new HashMap<>();
        for (PlannerSetting<?> s : PlannerSetting.ALL.stream().filter(PlannerSetting::inEnvironment).toList()) {
            String value = environment.apply(s.env());
            p.put(s.property(), value != null ? value : s.defaultText());
        }
        this.properties = Map.copyOf(p);
    }

    /** The property name under {@code joulie.}, as {@link OperatorConfig#planner()} is keyed. */
    static String key(PlannerSetting<?> s) {
        return s.property().substring("joulie.".length());
    }

    @Override
    public Map<String, String> getProperties() {
        return properties;
    }

    @Override
    public Set<String> getPropertyNames() {
        return properties.keySet();
    }

    @Override
    public String getValue(String propertyName) {
        return properties.get(propertyName);
    }

    @Override
    public String getName() {
        return "Joulie's documented environment variables";
    }

    @Override
    public int getOrdinal() {
        return ORDINAL;
    }
}
