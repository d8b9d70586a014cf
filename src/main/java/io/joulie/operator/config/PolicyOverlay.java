package io.joulie.operator.config;

import io.joulie.api.text.Durations;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.planner.Escalation;
import io.joulie.planner.PlannerSettings;
import io.joulie.planner.PolicyType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Lays a {@code Joulie} resource's {@code spec.policy} over the operator's environment defaults. Pure:
 * every invalid field is reported (named {@code spec.policy.<field>}) and an overlay with errors yields no
 * settings, so the caller keeps the last valid ones.
 */
public final class PolicyOverlay {
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
        List<String> errors = new ArrayList<>();
        PolicyType type = p.type() == null ? base.policyType() : PolicyType.fromConfig(p.type()).orElseGet(() -> {
            errors.add("spec.policy.type '%s' is not a known policy (static_partition, queue_aware_v1, rule_swap_v1)"
                    .formatted(p.type()));
            return base.policyType();
        });
        double staticFrac = fraction(errors, "staticHpFrac", p.staticHpFrac(), base.staticHpFrac());
        double baseFrac = fraction(errors, "queueHpBaseFrac", p.queueHpBaseFrac(), base.queueHpBaseFrac());
        int min = atLeast(errors, "queueHpMin", p.queueHpMin(), base.queueHpMin(), 0);
        int max = atLeast(errors, "queueHpMax", p.queueHpMax(), base.queueHpMax(), 0);
        if (min > max && (p.queueHpMin() != null || p.queueHpMax() != null)) {
            errors.add("spec.policy.queueHpMin (%d) must not exceed queueHpMax (%d)".formatted(min, max));
        }
        int perNode = atLeast(errors, "queuePerfPerHpNode", p.queuePerfPerHpNode(), base.queuePerfPerHpNode(), 1);
        double perfCap = cap(errors, "performanceCapWatts", p.performanceCapWatts(), base.performanceCapWatts());
        double ecoCap = cap(errors, "ecoCapWatts", p.ecoCapWatts(), base.ecoCapWatts());
        Escalation escalation = p.downgradeEscalation() == null ? base.escalation()
                : Escalation.fromConfig(p.downgradeEscalation()).orElseGet(() -> {
                    errors.add("spec.policy.downgradeEscalation '%s' must be hold, force or evict"
                            .formatted(p.downgradeEscalation()));
                    return base.escalation();
                });
        Duration timeout = duration(errors, "downgradeTimeout", p.downgradeTimeout(), base.downgradeTimeout(), false);
        Duration interval = duration(errors, "reconcileInterval", p.reconcileInterval(), base.reconcileInterval(), true);
        if (!errors.isEmpty()) {
            return new Result(Optional.empty(), errors);
        }
        return new Result(Optional.of(new PlannerSettings(type, staticFrac, baseFrac, min, max, perNode, perfCap, ecoCap,
                escalation, timeout, interval)), List.of());
    }

    /** The settings written out in {@code spec.policy} form, every field set ({@code status.effectivePolicy}). */
    public static JoulieSpec.Policy describe(PlannerSettings s) {
        return new JoulieSpec.Policy(s.policyType().configValue(), s.staticHpFrac(), s.queueHpBaseFrac(), s.queueHpMin(),
                s.queueHpMax(), s.queuePerfPerHpNode(), s.performanceCapWatts(), s.ecoCapWatts(),
                s.escalation().configValue(), Durations.format(s.downgradeTimeout()), Durations.format(s.reconcileInterval()));
    }

    private static double fraction(List<String> errors, String field, Double value, double fallback) {
        return check(errors, field, value, fallback, v -> Double.isFinite(v) && v >= 0 && v <= 1 ? null : "must be between 0 and 1");
    }

    private static double cap(List<String> errors, String field, Double value, double fallback) {
        return check(errors, field, value, fallback, v -> Double.isFinite(v) && v > 0 ? null
                : "a power cap must be greater than 0 watts");
    }

    private static int atLeast(List<String> errors, String field, Integer value, int fallback, int min) {
        return check(errors, field, value, fallback, v -> v >= min ? null : "must be at least " + min);
    }

    private static <T> T check(List<String> errors, String field, T value, T fallback, Function<T, String> problem) {
        if (value == null) {
            return fallback;
        }
        String p = problem.apply(value);
        if (p != null) {
            errors.add("spec.policy.%s = %s: %s".formatted(field, value, p));
            return fallback;
        }
        return value;
    }

    private static Duration duration(List<String> errors, String field, String value, Duration fallback, boolean positive) {
        if (value == null) {
            return fallback;
        }
        try {
            Duration d = Durations.parse(value);
            if (d.isNegative() || (positive && d.isZero())) {
                errors.add("spec.policy.%s = '%s': %s".formatted(field, value,
                        positive ? "must be greater than 0" : "must not be negative"));
                return fallback;
            }
            return d;
        } catch (IllegalArgumentException e) {
            errors.add("spec.policy.%s = '%s': %s".formatted(field, value, e.getMessage()));
            return fallback;
        }
    }
}
