package io.joulie.operator.config;

import io.joulie.planner.PlannerSetting;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A planning setting found in the operator's environment, under its documented variable ({@code STATIC_HP_FRAC}) or
 * Quarkus's name for its property ({@code JOULIE_STATIC_HP_FRAC}). Planning settings belong in {@code spec.policy} of
 * the {@code Joulie} resource (decision 136); the environment's are still honoured as the defaults under it until the
 * next release, and each one is reported: a Warning Event naming it and the field to use, and the {@code Joulie}
 * status ({@code Degraded}, reason {@code PlanningSettingInEnvironment}).
 *
 * @param variable the environment variable, e.g. {@code STATIC_HP_FRAC}
 * @param field    the {@code spec.policy} field to set instead, e.g. {@code staticHpFrac}
 */
public record PlanningVariable(String variable, String field) {
    /** The planning variables {@code environment} sets, in the settings table's order. */
    public static List<PlanningVariable> in(Function<String, String> environment) {
        List<PlanningVariable> found = new ArrayList<>();
        for (PlannerSetting<?> s : PlannerSetting.ALL.stream().filter(PlannerSetting::inEnvironment).toList()) {
            for (String name : List.of(s.env(), quarkusName(s))) {
                if (environment.apply(name) != null) {
                    found.add(new PlanningVariable(name, s.specField()));
                }
            }
        }
        return List.copyOf(found);
    }

    /** Quarkus's environment name of the setting's property: {@code joulie.static-hp-frac} → {@code JOULIE_STATIC_HP_FRAC}. */
    static String quarkusName(PlannerSetting<?> s) {
        return s.property().replace('.', '_').replace('-', '_').toUpperCase(Locale.ROOT);
    }

    /** The Event's message. */
    public String message() {
        return "%s is set in the operator's environment: set spec.policy.%s of the Joulie resource instead; the variable is"
                .formatted(variable, field) + " honoured under spec.policy until the next release, then ignored";
    }

    /** The {@code Joulie} status's message for these variables. */
    public static String summary(List<PlanningVariable> found) {
        return "planning settings are set in the operator's environment, honoured under spec.policy until the next "
                + "release; set them in spec.policy instead: " + found.stream()
                .map(v -> v.variable + " -> spec.policy." + v.field).collect(Collectors.joining(", "));
    }
}
