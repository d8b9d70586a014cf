package io.joulie.operator.config;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.joulie.api.text.Problems;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.planner.PlannerSetting;
import io.joulie.planner.PlannerSettings;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Lays a {@code Joulie} resource's {@code spec.policy} over the operator's environment defaults, and writes settings
 * back in {@code spec.policy} form. Pure: every invalid field is reported (named {@code spec.policy.<field>}) and an
 * overlay with errors yields no settings, so the caller keeps the last valid ones. The fields are those of the
 * settings table ({@link PlannerSetting}); {@code spec.policy} reaches it in its JSON form, as the API server has it.
 */
public final class PolicyOverlay {
    private static final ObjectMapper JSON = new ObjectMapper();

    private PolicyOverlay() {
    }

    /** The settings in force, or the reasons {@code spec.policy} cannot be used. */
    public record Result(Optional<PlannerSettings> settings, List<String> errors) {
        public Result {
            errors = List.copyOf(errors);
        }

        public boolean valid() {
            return errors.isEmpty();
        }
    }

    public static Result apply(PlannerSettings base, JoulieSpec.Policy p) {
        if (p == null) {
            return new Result(Optional.of(base), List.of());
        }
        Map<?, ?> fields = JSON.convertValue(p, Map.class);
        Problems problems = new Problems();
        Optional<PlannerSettings> settings = PlannerSetting.overlay(base, fields::get, problems);
        return new Result(settings, problems.lines());
    }

    /** The settings written out in {@code spec.policy} form, every field set ({@code status.effectivePolicy}). */
    public static JoulieSpec.Policy describe(PlannerSettings s) {
        return JoulieSpec.Policy.of(PlannerSetting.specFields(s));
    }
}
