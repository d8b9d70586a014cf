package io.joulie.planner;

import io.joulie.api.text.Problems;

import java.math.BigDecimal;
import java.util.List;
import java.util.OptionalDouble;
import java.util.function.Function;

import static io.joulie.planner.PlannerSetting.CAP_PAIRS;
import static io.joulie.planner.PlannerSetting.ECO_CAP_WATTS_BY_TYPE;
import static io.joulie.planner.PlannerSetting.QUEUE_HP_MAX;
import static io.joulie.planner.PlannerSetting.QUEUE_HP_MIN;

/**
 * The rules between {@link PlannerSettings} fields that no single row of {@link PlannerSetting} can check: one unit per
 * cap in {@code spec.policy}, the performance-node bounds in order, and eco never above performance. The table reads
 * the rows; these run on what it read.
 */
final class CrossFieldRules {
    private CrossFieldRules() {
    }

    /**
     * A cap set in {@code spec.policy} replaces the environment's cap of its profile and family, whichever unit: a
     * percent set there clears the environment's watts (which would win over it); watts and percent of one cap together
     * are an error.
     */
    @SuppressWarnings("unchecked")
    static void onePerCap(Function<String, Object> field, PlannerSettings.Builder b, Problems problems) {
        for (List<PlannerSetting<?>> pair : CAP_PAIRS) {
            PlannerSetting<OptionalDouble> watts = (PlannerSetting<OptionalDouble>) pair.get(0);
            PlannerSetting<?> percent = pair.get(1);
            boolean wattsSet = field.apply(watts.specField()) != null;
            boolean percentSet = field.apply(percent.specField()) != null;
            if (wattsSet && percentSet) {
                problems.add("spec.policy.%s and spec.policy.%s are mutually exclusive".formatted(watts.specField(),
                        percent.specField()));
            } else if (percentSet) {
                watts.set(b, OptionalDouble.empty());
            }
        }
    }

    /** In {@code spec.policy}, a lower bound above the upper one is an error (the environment's is normalised). */
    static void boundsInOrder(Function<String, Object> field, PlannerSettings s, Problems problems) {
        boolean set = field.apply(QUEUE_HP_MIN.specField()) != null || field.apply(QUEUE_HP_MAX.specField()) != null;
        if (set && s.queueHpMin() > s.queueHpMax()) {
            problems.add("spec.policy.queueHpMin (%d) must not exceed queueHpMax (%d)".formatted(s.queueHpMin(), s.queueHpMax()));
        }
    }

    /**
     * Eco must never allow more than performance: of each family (CPU, GPU), an eco cap above the performance cap in
     * force (for the CPU, a type's eco cap too) is an error wherever the two meet (at start in the environment, in
     * {@code spec.policy} over it), never normalised. Caps in different units (watts and a percent) can only be
     * compared on a node's hardware: its agent refuses an eco cap above the performance cap there.
     *
     * @param eco         how a problem names the eco cap's setting
     * @param performance how it names the performance cap's setting
     */
    static void capsInOrder(PlannerSettings s, Function<PlannerSetting<?>, String> eco,
                            Function<PlannerSetting<?>, String> performance, Problems problems) {
        for (int family = 0; family < CAP_PAIRS.size(); family += 2) {
            PlannerSetting<?> p = inForce(CAP_PAIRS.get(family), s);
            PlannerSetting<?> e = inForce(CAP_PAIRS.get(family + 1), s);
            boolean watts = p.kind() == SettingKind.OPTIONAL_WATTS;
            if ((e.kind() == SettingKind.OPTIONAL_WATTS) == watts && capValue(e, s) > capValue(p, s)) {
                String unit = watts ? "W" : "%";
                problems.add("%s (%s %s) must not exceed %s (%s %s): eco must never allow more than performance".formatted(
                        eco.apply(e), number(capValue(e, s)), unit, performance.apply(p), number(capValue(p, s)), unit));
            }
        }
        // a type's eco cap replaces the eco CPU cap on its nodes: it meets the performance CPU cap too
        PlannerSetting<?> cpu = inForce(CAP_PAIRS.getFirst(), s);
        if (cpu.kind() == SettingKind.OPTIONAL_WATTS) {
            double limit = capValue(cpu, s);
            s.ecoCapWattsByType().forEach((type, watts) -> {
                if (watts > limit) {
                    problems.add("%s (%s=%s W) must not exceed %s (%s W): eco must never allow more than performance".formatted(
                            eco.apply(ECO_CAP_WATTS_BY_TYPE), type, number(watts), performance.apply(cpu), number(limit)));
                }
            });
        }
    }

    /** Of a cap's two rows (watts, percent), the one in force: the watts where given, else the percent. */
    private static PlannerSetting<?> inForce(List<PlannerSetting<?>> pair, PlannerSettings s) {
        return ((OptionalDouble) pair.get(0).get(s)).isPresent() ? pair.get(0) : pair.get(1);
    }

    private static double capValue(PlannerSetting<?> row, PlannerSettings s) {
        return row.get(s) instanceof OptionalDouble w ? w.getAsDouble() : (Double) row.get(s);
    }

    private static String number(double v) {
        return BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }
}
