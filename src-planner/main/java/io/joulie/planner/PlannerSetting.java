package io.joulie.planner;

import io.joulie.api.text.Durations;
import io.joulie.api.text.LabelSelector;
import io.joulie.api.text.Problems;
import io.joulie.api.text.Problems.DurationBound;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The table of planner settings: each row declares one setting once, with every name it has (environment variable,
 * {@code joulie.*} property, {@code spec.policy} field of the {@code Joulie} resource, simulator parameter), its
 * default, how its text is read and what makes a value invalid. Everything else is derived from the rows: the
 * operator's property mapping and parser, the {@code spec.policy} overlay and {@code status.effectivePolicy}, the
 * simulator's parameters and the environment it starts the operator with; a test holds docs/configuration.md to them.
 *
 * <p>The environment is lenient where the policies clamp ({@code STATIC_HP_FRAC=1.5} is planned as 1), and an unknown
 * {@code POLICY_TYPE} falls back to {@code static_partition}; {@code spec.policy} is strict: a value out of its range
 * is an error there (decision 26).
 *
 * @param <T> the value's type in {@link PlannerSettings}
 */
public final class PlannerSetting<T> {
    /** Where a value comes from, which decides how strict the checks are and how a problem names the place. */
    public enum Source {
        /** An environment variable or its {@code joulie.*} property (text). */
        ENVIRONMENT,
        /** A field of {@code spec.policy} of the {@code Joulie} resource (JSON: a number or a string); strict. */
        SPEC_POLICY,
        /** A parameter of the simulator (text). */
        SIMULATOR
    }

    public static final PlannerSetting<PolicyType> POLICY_TYPE = row("POLICY_TYPE", "joulie.policy-type", "type",
            Kind.POLICY, "static_partition", "base policy", PlannerSettings::policyType, PlannerSettings.Builder::policyType);
    public static final PlannerSetting<Double> STATIC_HP_FRAC = row("STATIC_HP_FRAC", "joulie.static-hp-frac",
            "staticHpFrac", Kind.FRACTION, "0.50", "static_partition share of performance nodes",
            PlannerSettings::staticHpFrac, PlannerSettings.Builder::staticHpFrac)
            .simulator("planner.staticHpFrac", "0.75");
    public static final PlannerSetting<Double> QUEUE_HP_BASE_FRAC = row("QUEUE_HP_BASE_FRAC", "joulie.queue-hp-base-frac",
            "queueHpBaseFrac", Kind.FRACTION, "0.60", "queue_aware_v1 base share",
            PlannerSettings::queueHpBaseFrac, PlannerSettings.Builder::queueHpBaseFrac)
            .simulator("planner.queueHpBaseFrac", "0.70");
    public static final PlannerSetting<Integer> QUEUE_HP_MIN = row("QUEUE_HP_MIN", "joulie.queue-hp-min", "queueHpMin",
            Kind.nodes(0), "1", "queue_aware_v1 lower bound", PlannerSettings::queueHpMin,
            PlannerSettings.Builder::queueHpMin)
            .simulator("planner.queueHpMin", "2");
    public static final PlannerSetting<Integer> QUEUE_HP_MAX = row("QUEUE_HP_MAX", "joulie.queue-hp-max", "queueHpMax",
            Kind.nodes(0), "1000000", "queue_aware_v1 upper bound", PlannerSettings::queueHpMax,
            PlannerSettings.Builder::queueHpMax)
            .simulator("planner.queueHpMax", "5");
    public static final PlannerSetting<Integer> QUEUE_PERF_PER_HP_NODE = row("QUEUE_PERF_PER_HP_NODE",
            "joulie.queue-perf-per-hp-node", "queuePerfPerHpNode", Kind.nodes(1), "10",
            "performance-only pods per performance node", PlannerSettings::queuePerfPerHpNode,
            PlannerSettings.Builder::queuePerfPerHpNode)
            .simulator("planner.queuePerfPerHpNode", "15");
    public static final PlannerSetting<OptionalDouble> PERFORMANCE_CAP_WATTS = row("PERFORMANCE_CAP_WATTS",
            "joulie.performance-cap-watts", "performanceCapWatts", Kind.OPTIONAL_WATTS, "none",
            "CPU cap of the performance profile, watts for the node; wins over the percent", PlannerSettings::performanceCapWatts,
            PlannerSettings.Builder::performanceCapWatts)
            .simulator("planner.performanceCapWatts", "500");
    public static final PlannerSetting<Double> PERFORMANCE_CAP_PERCENT = row("PERFORMANCE_CAP_PERCENT",
            "joulie.performance-cap-percent", "performanceCapPercent", Kind.PERCENT, "100",
            "CPU cap of the performance profile, percent of each package's maximum", PlannerSettings::performanceCapPercent,
            PlannerSettings.Builder::performanceCapPercent);
    public static final PlannerSetting<OptionalDouble> ECO_CAP_WATTS = row("ECO_CAP_WATTS", "joulie.eco-cap-watts", "ecoCapWatts",
            Kind.OPTIONAL_WATTS, "none", "CPU cap of the eco profile, watts for the node; wins over the percent",
            PlannerSettings::ecoCapWatts, PlannerSettings.Builder::ecoCapWatts)
            .simulator("planner.ecoCapWatts", "260");
    public static final PlannerSetting<Double> ECO_CAP_PERCENT = row("ECO_CAP_PERCENT", "joulie.eco-cap-percent", "ecoCapPercent",
            Kind.PERCENT, "60", "CPU cap of the eco profile, percent of each package's maximum", PlannerSettings::ecoCapPercent,
            PlannerSettings.Builder::ecoCapPercent);
    public static final PlannerSetting<OptionalDouble> GPU_PERFORMANCE_CAP_WATTS_PER_GPU = row("GPU_PERFORMANCE_CAP_WATTS_PER_GPU",
            "joulie.gpu-performance-cap-watts-per-gpu", "gpuPerformanceCapWattsPerGpu", Kind.OPTIONAL_WATTS, "none",
            "GPU cap of the performance profile, watts per board; wins over the percent",
            PlannerSettings::gpuPerformanceCapWattsPerGpu, PlannerSettings.Builder::gpuPerformanceCapWattsPerGpu)
            .simulator("planner.gpuPerformanceCapWattsPerGpu", "none");
    public static final PlannerSetting<Double> GPU_PERFORMANCE_CAP_PERCENT = row("GPU_PERFORMANCE_CAP_PERCENT",
            "joulie.gpu-performance-cap-percent", "gpuPerformanceCapPercent", Kind.PERCENT, "100",
            "GPU cap of the performance profile, percent of each board's maximum", PlannerSettings::gpuPerformanceCapPercent,
            PlannerSettings.Builder::gpuPerformanceCapPercent)
            .simulator("planner.gpuPerformanceCapPercent", "100");
    public static final PlannerSetting<OptionalDouble> GPU_ECO_CAP_WATTS_PER_GPU = row("GPU_ECO_CAP_WATTS_PER_GPU",
            "joulie.gpu-eco-cap-watts-per-gpu", "gpuEcoCapWattsPerGpu", Kind.OPTIONAL_WATTS, "none",
            "GPU cap of the eco profile, watts per board; wins over the percent", PlannerSettings::gpuEcoCapWattsPerGpu,
            PlannerSettings.Builder::gpuEcoCapWattsPerGpu)
            .simulator("planner.gpuEcoCapWattsPerGpu", "none");
    public static final PlannerSetting<Double> GPU_ECO_CAP_PERCENT = row("GPU_ECO_CAP_PERCENT", "joulie.gpu-eco-cap-percent",
            "gpuEcoCapPercent", Kind.PERCENT, "60", "GPU cap of the eco profile, percent of each board's maximum",
            PlannerSettings::gpuEcoCapPercent, PlannerSettings.Builder::gpuEcoCapPercent)
            .simulator("planner.gpuEcoCapPercent", "60");
    public static final PlannerSetting<Escalation> DOWNGRADE_ESCALATION = row("DOWNGRADE_ESCALATION",
            "joulie.downgrade-escalation", "downgradeEscalation", Kind.ESCALATION, "hold", "hold, force or evict",
            PlannerSettings::escalation, PlannerSettings.Builder::escalation)
            .simulator("planner.escalation", "hold");
    public static final PlannerSetting<Duration> DOWNGRADE_TIMEOUT = row("DOWNGRADE_TIMEOUT", "joulie.downgrade-timeout",
            "downgradeTimeout", Kind.duration(DurationBound.NOT_NEGATIVE), "30m", "drain time before escalation",
            PlannerSettings::downgradeTimeout, PlannerSettings.Builder::downgradeTimeout)
            .simulator("planner.downgradeTimeoutSeconds", "1800", Kind.SECONDS);
    public static final PlannerSetting<Duration> RECONCILE_INTERVAL = row("RECONCILE_INTERVAL", "joulie.reconcile-interval",
            "reconcileInterval", Kind.duration(DurationBound.POSITIVE), "1m", "planning interval",
            PlannerSettings::reconcileInterval, PlannerSettings.Builder::reconcileInterval);
    public static final PlannerSetting<Duration> SETTLE_TIME = row("SETTLE_TIME", "joulie.settle-time", "settleTime",
            Kind.duration(DurationBound.NOT_NEGATIVE), "5s", "time a draining node shows no performance-only pod before eco",
            PlannerSettings::settleTime, PlannerSettings.Builder::settleTime);
    public static final PlannerSetting<Duration> CAP_CONFIRMATION_TIMEOUT = row("CAP_CONFIRMATION_TIMEOUT",
            "joulie.cap-confirmation-timeout", "capConfirmationTimeout", Kind.duration(DurationBound.POSITIVE), "5m",
            "wait for the agent to confirm a performance cap before a Warning", PlannerSettings::capConfirmationTimeout,
            PlannerSettings.Builder::capConfirmationTimeout);
    public static final PlannerSetting<Integer> MAX_TRANSITIONS_PER_TICK = row("MAX_TRANSITIONS_PER_TICK",
            "joulie.max-transitions-per-tick", "maxTransitionsPerTick", Kind.count(1), "100",
            "nodes that change state in one tick", PlannerSettings::maxTransitionsPerTick,
            PlannerSettings.Builder::maxTransitionsPerTick);
    public static final PlannerSetting<Integer> MAX_EVICTIONS_PER_TICK = row("MAX_EVICTIONS_PER_TICK",
            "joulie.max-evictions-per-tick", "maxEvictionsPerTick", Kind.count(1), "10", "pods evicted in one tick",
            PlannerSettings::maxEvictionsPerTick, PlannerSettings.Builder::maxEvictionsPerTick);
    public static final PlannerSetting<Double> DEMAND_HEADROOM_FRAC = row("DEMAND_HEADROOM_FRAC",
            "joulie.demand-headroom-frac", "demandHeadroomFrac", Kind.HEADROOM, "0.2",
            "demand_sized_v1 spare performance capacity", PlannerSettings::demandHeadroomFrac,
            PlannerSettings.Builder::demandHeadroomFrac)
            .simulator("planner.demandHeadroomFrac", "0.2");
    public static final PlannerSetting<Map<String, Double>> ECO_CAP_WATTS_BY_TYPE = row("ECO_CAP_WATTS_BY_TYPE",
            "joulie.eco-cap-watts-by-type", "ecoCapWattsByType", Kind.CAPS_BY_TYPE, "none", "eco cap by node type",
            PlannerSettings::ecoCapWattsByType, PlannerSettings.Builder::ecoCapWattsByType)
            .simulator("planner.ecoCapWattsByType", "none");

    /** Every row, in documentation order. */
    public static final List<PlannerSetting<?>> ALL = List.of(POLICY_TYPE, STATIC_HP_FRAC, QUEUE_HP_BASE_FRAC, QUEUE_HP_MIN,
            QUEUE_HP_MAX, QUEUE_PERF_PER_HP_NODE, PERFORMANCE_CAP_WATTS, PERFORMANCE_CAP_PERCENT, ECO_CAP_WATTS, ECO_CAP_PERCENT,
            GPU_PERFORMANCE_CAP_WATTS_PER_GPU, GPU_PERFORMANCE_CAP_PERCENT, GPU_ECO_CAP_WATTS_PER_GPU, GPU_ECO_CAP_PERCENT,
            DOWNGRADE_ESCALATION, DOWNGRADE_TIMEOUT, RECONCILE_INTERVAL, SETTLE_TIME, CAP_CONFIRMATION_TIMEOUT,
            MAX_TRANSITIONS_PER_TICK, MAX_EVICTIONS_PER_TICK, DEMAND_HEADROOM_FRAC, ECO_CAP_WATTS_BY_TYPE);

    /**
     * Each profile's cap of one family, in watts or in percent: the watts, where set, are the cap; in {@code spec.policy}
     * one unit at a time, and the one set there replaces the environment's cap of that profile and family.
     */
    static final List<List<PlannerSetting<?>>> CAP_PAIRS = List.of(List.of(PERFORMANCE_CAP_WATTS, PERFORMANCE_CAP_PERCENT),
            List.of(ECO_CAP_WATTS, ECO_CAP_PERCENT), List.of(GPU_PERFORMANCE_CAP_WATTS_PER_GPU, GPU_PERFORMANCE_CAP_PERCENT),
            List.of(GPU_ECO_CAP_WATTS_PER_GPU, GPU_ECO_CAP_PERCENT));

    private final String env;
    private final String property;
    private final String specField;
    private final Kind<T> kind;
    private final String defaultText;
    private final String meaning;
    private final Function<PlannerSettings, T> get;
    private final BiConsumer<PlannerSettings.Builder, T> set;
    private final String simKey;
    private final String simDefault;
    private final Kind<T> simKind;

    private PlannerSetting(String env, String property, String specField, Kind<T> kind, String defaultText, String meaning,
                           Function<PlannerSettings, T> get, BiConsumer<PlannerSettings.Builder, T> set, String simKey,
                           String simDefault, Kind<T> simKind) {
        this.env = env;
        this.property = property;
        this.specField = specField;
        this.kind = kind;
        this.defaultText = defaultText;
        this.meaning = meaning;
        this.get = get;
        this.set = set;
        this.simKey = simKey;
        this.simDefault = simDefault;
        this.simKind = simKind;
    }

    private static <T> PlannerSetting<T> row(String env, String property, String specField, Kind<T> kind,
                                             String defaultText, String meaning, Function<PlannerSettings, T> get,
                                             BiConsumer<PlannerSettings.Builder, T> set) {
        return new PlannerSetting<>(env, property, specField, kind, defaultText, meaning, get, set, null, null, null);
    }

    private PlannerSetting<T> simulator(String key, String defaultValue) {
        return simulator(key, defaultValue, kind);
    }

    /** The simulator's parameter for this setting, its default there and how its text is read. */
    private PlannerSetting<T> simulator(String key, String defaultValue, Kind<T> textKind) {
        return new PlannerSetting<>(env, property, specField, kind, defaultText, meaning, get, set, key, defaultValue, textKind);
    }

    /** The documented environment variable, e.g. {@code STATIC_HP_FRAC}. */
    public String env() {
        return env;
    }

    /** The property, e.g. {@code joulie.static-hp-frac}. */
    public String property() {
        return property;
    }

    /** The field of {@code spec.policy}, e.g. {@code staticHpFrac}. */
    public String specField() {
        return specField;
    }

    /** The default as documented, e.g. {@code 0.50}. */
    public String defaultText() {
        return defaultText;
    }

    /** The simulator's parameter, e.g. {@code planner.staticHpFrac}; empty when the simulator sets it otherwise. */
    public Optional<String> simulatorKey() {
        return Optional.ofNullable(simKey);
    }

    /** The simulator's default for its parameter. */
    public Optional<String> simulatorDefault() {
        return Optional.ofNullable(simDefault);
    }

    /** What the setting means, in a few words, naming its variable: {@code cap of the eco profile (ECO_CAP_WATTS)}. */
    public String meaning() {
        return meaning + " (" + env + ")";
    }

    public T get(PlannerSettings s) {
        return get.apply(s);
    }

    /**
     * Reads every setting from text, starting from the documented defaults ({@link Source#ENVIRONMENT}, by
     * {@link #property()}) or the defaults with the simulator's parameters laid over them ({@link Source#SIMULATOR},
     * by {@link #simulatorKey()}; the settings without one keep their defaults). A missing text is a problem.
     *
     * @param text     the text of a setting, or null when it has none
     * @param problems where problems go, each naming the setting as {@code where} does
     * @param where    how a problem names the setting, e.g. {@code STATIC_HP_FRAC (joulie.static-hp-frac)}
     * @return the settings, or empty when there was a problem; an unknown policy type is not one: see {@link Read}
     */
    public static Read read(Source source, Function<PlannerSetting<?>, String> text, Function<PlannerSetting<?>, String> where,
                            Problems problems) {
        PlannerSettings.Builder b = PlannerSettings.defaults().toBuilder();
        Optional<String> unknownPolicy = Optional.empty();
        int before = problems.lines().size();
        for (PlannerSetting<?> s : ALL) {
            if (source == Source.SIMULATOR && s.simKey == null) {
                continue;
            }
            String t = text.apply(s);
            if (s == POLICY_TYPE && source == Source.ENVIRONMENT && t != null && PolicyType.fromConfig(t).isEmpty()) {
                unknownPolicy = Optional.of(t); // lenient: static_partition, with a warning and an Event
                continue;
            }
            s.readText(source, t, where.apply(s), problems, b);
        }
        if (problems.lines().size() == before) {
            capsInOrder(b.build(), where, where, problems);
        }
        return new Read(problems.lines().size() == before ? Optional.of(b.build()) : Optional.empty(), unknownPolicy);
    }

    /** Settings read from text, and the unknown {@code POLICY_TYPE} that was replaced by static_partition, if any. */
    public record Read(Optional<PlannerSettings> settings, Optional<String> unknownPolicy) {
    }

    private void readText(Source source, String text, String where, Problems problems, PlannerSettings.Builder b) {
        if (text == null) {
            problems.add(where + " is not set");
            return;
        }
        Kind<T> k = source == Source.SIMULATOR ? simKind : kind;
        k.parse(where, text, problems).filter(v -> k.check(where, text, v, source, problems)).ifPresent(v -> set.accept(b, v));
    }

    /**
     * {@code spec.policy} laid over {@code base}: an unset field keeps the base's value; every invalid field is a
     * problem named {@code spec.policy.<field>}, and with any problem there are no settings.
     *
     * @param field the value of a {@code spec.policy} field as JSON has it (a number or a string), null when unset
     */
    public static Optional<PlannerSettings> overlay(PlannerSettings base, Function<String, Object> field, Problems problems) {
        PlannerSettings.Builder b = base.toBuilder();
        int before = problems.lines().size();
        for (PlannerSetting<?> s : ALL) {
            s.overlayField(field.apply(s.specField), problems, b);
            if (s == QUEUE_HP_MAX) {
                boundsInOrder(field, b.build(), problems);
            }
        }
        onePerCap(field, b, problems);
        if (problems.lines().size() == before) {
            capsInOrder(b.build(), row -> "spec.policy." + row.specField, row -> row.specField, problems);
        }
        return problems.lines().size() == before ? Optional.of(b.build()) : Optional.empty();
    }

    /**
     * A cap set in {@code spec.policy} replaces the environment's cap of its profile and family, whichever unit: a
     * percent set there clears the environment's watts (which would win over it); watts and percent of one cap together
     * are an error.
     */
    @SuppressWarnings("unchecked")
    private static void onePerCap(Function<String, Object> field, PlannerSettings.Builder b, Problems problems) {
        for (List<PlannerSetting<?>> pair : CAP_PAIRS) {
            PlannerSetting<OptionalDouble> watts = (PlannerSetting<OptionalDouble>) pair.get(0);
            PlannerSetting<?> percent = pair.get(1);
            boolean wattsSet = field.apply(watts.specField) != null;
            boolean percentSet = field.apply(percent.specField) != null;
            if (wattsSet && percentSet) {
                problems.add("spec.policy.%s and spec.policy.%s are mutually exclusive".formatted(watts.specField, percent.specField));
            } else if (percentSet) {
                watts.set.accept(b, OptionalDouble.empty());
            }
        }
    }

    private void overlayField(Object value, Problems problems, PlannerSettings.Builder b) {
        if (value == null) {
            return;
        }
        String where = "spec.policy." + specField;
        kind.fromSpec(where, value, problems).filter(v -> kind.check(where, value, v, Source.SPEC_POLICY, problems))
                .ifPresent(v -> set.accept(b, v));
    }

    /** In {@code spec.policy}, a lower bound above the upper one is an error (the environment's is normalised). */
    private static void boundsInOrder(Function<String, Object> field, PlannerSettings s, Problems problems) {
        boolean set = field.apply(QUEUE_HP_MIN.specField) != null || field.apply(QUEUE_HP_MAX.specField) != null;
        if (set && s.queueHpMin() > s.queueHpMax()) {
            problems.add("spec.policy.queueHpMin (%d) must not exceed queueHpMax (%d)".formatted(s.queueHpMin(), s.queueHpMax()));
        }
    }

    /**
     * Eco must never allow more than performance: of each family (CPU, GPU), an eco cap above the performance cap in
     * force (for the CPU, a type's eco cap too) is an error wherever the two meet (at start in the environment, in {@code spec.policy} over it), never
     * normalised. Caps in different units (watts and a percent) can only be compared on a node's hardware: its agent
     * refuses an eco cap above the performance cap there.
     *
     * @param eco         how a problem names the eco cap's setting
     * @param performance how it names the performance cap's setting
     */
    private static void capsInOrder(PlannerSettings s, Function<PlannerSetting<?>, String> eco,
                                    Function<PlannerSetting<?>, String> performance, Problems problems) {
        for (int family = 0; family < CAP_PAIRS.size(); family += 2) {
            PlannerSetting<?> p = inForce(CAP_PAIRS.get(family), s);
            PlannerSetting<?> e = inForce(CAP_PAIRS.get(family + 1), s);
            boolean watts = p.kind == Kind.OPTIONAL_WATTS;
            if ((e.kind == Kind.OPTIONAL_WATTS) == watts && capValue(e, s) > capValue(p, s)) {
                String unit = watts ? "W" : "%";
                problems.add("%s (%s %s) must not exceed %s (%s %s): eco must never allow more than performance".formatted(
                        eco.apply(e), number(capValue(e, s)), unit, performance.apply(p), number(capValue(p, s)), unit));
            }
        }
        // a type's eco cap replaces the eco CPU cap on its nodes: it meets the performance CPU cap too
        PlannerSetting<?> cpu = inForce(CAP_PAIRS.getFirst(), s);
        if (cpu.kind == Kind.OPTIONAL_WATTS) {
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
        return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }

    /**
     * The settings as {@code spec.policy} fields ({@code status.effectivePolicy}): every one set, but of each cap only
     * the unit in force (its watts where given, else its percent), as {@code spec.policy} may hold one.
     */
    public static Map<String, Object> specFields(PlannerSettings s) {
        Map<String, Object> fields = new LinkedHashMap<>();
        ALL.forEach(row -> {
            Object value = row.specValue(s);
            if (value != null && !shadowed(row, s)) {
                fields.put(row.specField, value);
            }
        });
        return fields;
    }

    /** A cap's percent where its watts are given: not in force. */
    private static boolean shadowed(PlannerSetting<?> row, PlannerSettings s) {
        return CAP_PAIRS.stream().anyMatch(pair -> pair.get(1) == row && ((OptionalDouble) pair.get(0).get(s)).isPresent());
    }

    private Object specValue(PlannerSettings s) {
        return kind.toSpec(get(s));
    }

    /** The settings as the operator's environment variables (the simulator starts the operator with them). */
    public static Map<String, String> environment(PlannerSettings s) {
        Map<String, String> env = new LinkedHashMap<>();
        ALL.forEach(row -> env.put(row.env, row.text(s)));
        return env;
    }

    private String text(PlannerSettings s) {
        return kind.format(get(s));
    }

    /** The documented defaults, read from the table ({@link PlannerSettings#defaults()} keeps them). */
    static PlannerSettings documentedDefaults() {
        PlannerSettings.Builder b = new PlannerSettings.Builder();
        Problems problems = new Problems();
        ALL.forEach(s -> s.readText(Source.ENVIRONMENT, s.defaultText, s.env, problems, b));
        problems.throwIfAny("The planner's documented defaults are invalid");
        return b.build();
    }

    /**
     * How a setting's value is read, written and checked. {@code strict} checks apply to {@code spec.policy} only.
     */
    abstract static class Kind<T> {
        static final Kind<Double> FRACTION = Numeric.decimal(v -> Double.isFinite(v) && v >= 0 && v <= 1,
                "must be between 0 and 1", true);
        static final Kind<Double> PERCENT = Numeric.decimal(v -> Double.isFinite(v) && v > 0 && v <= 100,
                "a percent cap must be greater than 0 and at most 100", false);
        /** Watts, or {@code none}: not set (the percent of the same cap applies). */
        static final Kind<OptionalDouble> OPTIONAL_WATTS = new Kind<>() {
            @Override
            Optional<OptionalDouble> parse(String where, String text, Problems problems) {
                if (text.strip().equalsIgnoreCase("none")) {
                    return Optional.of(OptionalDouble.empty());
                }
                OptionalDouble v = problems.number(where, text);
                return v.isPresent() ? Optional.of(v) : Optional.empty();
            }

            @Override
            Optional<OptionalDouble> fromSpec(String where, Object value, Problems problems) {
                return Optional.of(OptionalDouble.of(((Number) value).doubleValue()));
            }

            @Override
            String format(OptionalDouble value) {
                return value.isPresent() ? String.valueOf(value.getAsDouble()) : "none";
            }

            @Override
            Object toSpec(OptionalDouble value) {
                return value.isPresent() ? value.getAsDouble() : null;
            }

            @Override
            boolean check(String where, Object raw, OptionalDouble value, Source source, Problems problems) {
                if (value.isEmpty() || (Double.isFinite(value.getAsDouble()) && value.getAsDouble() > 0)) {
                    return true;
                }
                problems.add(where, raw, "a power cap must be greater than 0 watts (or none)");
                return false;
            }
        };
        static final Kind<Escalation> ESCALATION = new Choice<>(Escalation::fromConfig, Escalation::configValue,
                "must be hold, force or evict");
        static final Kind<PolicyType> POLICY = new Choice<>(PolicyType::fromConfig, PolicyType::configValue,
                "is not a known policy (" + PolicyType.knownValues() + ")");
        /** A share of capacity on top of a demand: no upper bound, never negative (everywhere). */
        static final Kind<Double> HEADROOM = Numeric.decimal(v -> Double.isFinite(v) && v >= 0, "must be at least 0", false);
        /** Eco caps by node type. */
        static final Kind<Map<String, Double>> CAPS_BY_TYPE = new CapsByType();
        /** A number of seconds (the simulator's {@code planner.downgradeTimeoutSeconds}). */
        static final Kind<Duration> SECONDS = new Kind<>() {
            @Override
            Optional<Duration> parse(String where, String text, Problems problems) {
                OptionalDouble v = problems.number(where, text);
                return v.isPresent() ? Optional.of(Duration.ofMillis(Math.round(v.getAsDouble() * 1000))) : Optional.empty();
            }

            @Override
            String format(Duration value) {
                return Double.toString(value.toMillis() / 1000.0);
            }
        };

        /** A count of nodes or pods: at least {@code min} in {@code spec.policy} (the policies normalise the rest). */
        static Kind<Integer> nodes(int min) {
            return Numeric.whole(v -> v >= min, "must be at least " + min, true);
        }

        /** A limit: at least {@code min} everywhere (nothing would normalise a limit of 0). */
        static Kind<Integer> count(int min) {
            return Numeric.whole(v -> v >= min, "must be at least " + min, false);
        }

        static Kind<Duration> duration(DurationBound bound) {
            return new Length(bound);
        }

        /** The value of a text, or empty after reporting why it is none. */
        abstract Optional<T> parse(String where, String text, Problems problems);

        abstract String format(T value);

        /** The value of a {@code spec.policy} field; numbers come as numbers, everything else as text. */
        Optional<T> fromSpec(String where, Object value, Problems problems) {
            return parse(where, String.valueOf(value), problems);
        }

        /** The value as a {@code spec.policy} field. */
        Object toSpec(T value) {
            return format(value);
        }

        /** Whether a well-formed value may be used; reports it when not. */
        boolean check(String where, Object raw, T value, Source source, Problems problems) {
            return true;
        }
    }

    /**
     * A number whose value must pass {@code accepts}: always, or ({@code strictOnly}) in {@code spec.policy} only, where
     * it comes as a JSON number.
     */
    private static final class Numeric<T extends Number> extends Kind<T> {
        /** Reads a number's text, reporting why it is none. */
        interface Reader<T> {
            Optional<T> read(Problems problems, String where, String text);
        }

        private final Reader<T> reader;
        private final Function<Number, T> fromJson;
        private final Predicate<T> accepts;
        private final String problem;
        private final boolean strictOnly;

        Numeric(Reader<T> reader, Function<Number, T> fromJson, Predicate<T> accepts, String problem, boolean strictOnly) {
            this.reader = reader;
            this.fromJson = fromJson;
            this.accepts = accepts;
            this.problem = problem;
            this.strictOnly = strictOnly;
        }

        static Numeric<Double> decimal(Predicate<Double> accepts, String problem, boolean strictOnly) {
            return new Numeric<>((p, where, text) -> {
                OptionalDouble v = p.number(where, text);
                return v.isPresent() ? Optional.of(v.getAsDouble()) : Optional.empty();
            }, Number::doubleValue, accepts, problem, strictOnly);
        }

        static Numeric<Integer> whole(Predicate<Integer> accepts, String problem, boolean strictOnly) {
            return new Numeric<>((p, where, text) -> {
                OptionalInt v = p.integer(where, text);
                return v.isPresent() ? Optional.of(v.getAsInt()) : Optional.empty();
            }, Number::intValue, accepts, problem, strictOnly);
        }

        @Override
        Optional<T> parse(String where, String text, Problems problems) {
            return reader.read(problems, where, text);
        }

        @Override
        Optional<T> fromSpec(String where, Object value, Problems problems) {
            return Optional.of(fromJson.apply((Number) value));
        }

        @Override
        String format(T value) {
            return String.valueOf(value);
        }

        @Override
        Object toSpec(T value) {
            return value;
        }

        @Override
        boolean check(String where, Object raw, T value, Source source, Problems problems) {
            if ((strictOnly && source != Source.SPEC_POLICY) || accepts.test(value)) {
                return true;
            }
            problems.add(where, raw, problem);
            return false;
        }
    }

    /** A duration within a bound, everywhere. */
    private static final class Length extends Kind<Duration> {
        private final DurationBound bound;

        Length(DurationBound bound) {
            this.bound = bound;
        }

        @Override
        Optional<Duration> parse(String where, String text, Problems problems) {
            return problems.duration(where, text, bound);
        }

        @Override
        String format(Duration value) {
            return Durations.format(value);
        }
    }

    /**
     * One of a few words, case-insensitive and trimmed. In {@code spec.policy} a wrong one reads
     * {@code spec.policy.type 'fastest' is not a known policy (...)}.
     */
    private static final class Choice<T> extends Kind<T> {
        private final Function<String, Optional<T>> parse;
        private final Function<T, String> format;
        private final String problem;

        Choice(Function<String, Optional<T>> parse, Function<T, String> format, String problem) {
            this.parse = parse;
            this.format = format;
            this.problem = problem;
        }

        @Override
        Optional<T> parse(String where, String text, Problems problems) {
            Optional<T> v = parse.apply(text);
            if (v.isEmpty()) {
                problems.add(where, text, problem);
            }
            return v;
        }

        @Override
        Optional<T> fromSpec(String where, Object value, Problems problems) {
            Optional<T> v = parse.apply(String.valueOf(value));
            if (v.isEmpty()) {
                problems.add(where + " '" + value + "' " + problem);
            }
            return v;
        }

        @Override
        String format(T value) {
            return format.apply(value);
        }
    }

    /**
     * Caps by node type: as text {@code dell-r640=260,dell-r940=507} (or {@code none}), in {@code spec.policy} a JSON
     * object {@code {dell-r640: 260}}. Each type must be a label value and each cap greater than 0 watts, everywhere.
     */
    private static final class CapsByType extends Kind<Map<String, Double>> {
        private static final String NONE = "none";

        @Override
        Optional<Map<String, Double>> parse(String where, String text, Problems problems) {
            Map<String, Double> caps = new TreeMap<>();
            if (text.isBlank() || text.trim().equalsIgnoreCase(NONE)) {
                return Optional.of(caps);
            }
            int before = problems.lines().size();
            for (String part : text.split(",")) {
                String entry = part.trim();
                String[] kv = entry.split("=", 2);
                if (kv.length != 2) {
                    problems.add(where, text, "'" + entry + "' is not type=watts");
                    continue;
                }
                double watts;
                try {
                    watts = Double.parseDouble(kv[1].trim());
                } catch (NumberFormatException e) {
                    problems.add(where, text, "'" + entry + "': the cap is not a number");
                    continue;
                }
                String problem = problem(kv[0].trim(), watts);
                if (problem != null) {
                    problems.add(where, text, "'" + entry + "': " + problem);
                } else {
                    caps.put(kv[0].trim(), watts);
                }
            }
            return problems.lines().size() == before ? Optional.of(caps) : Optional.empty();
        }

        @Override
        Optional<Map<String, Double>> fromSpec(String where, Object value, Problems problems) {
            if (!(value instanceof Map<?, ?> map)) {
                problems.add(where, value, "must map node types to watts");
                return Optional.empty();
            }
            Map<String, Double> caps = new TreeMap<>();
            int before = problems.lines().size();
            map.forEach((type, watts) -> {
                String problem = watts instanceof Number n ? problem(String.valueOf(type), n.doubleValue()) : "is not a number";
                if (problem != null) {
                    problems.add(where + "." + type, watts, problem);
                } else {
                    caps.put(String.valueOf(type), ((Number) watts).doubleValue());
                }
            });
            return problems.lines().size() == before ? Optional.of(caps) : Optional.empty();
        }

        /** What is wrong with one type's cap, or null. */
        private static String problem(String type, double watts) {
            if (type.isEmpty() || !LabelSelector.isValidValue(type)) {
                return "'" + type + "' is not a node type (a label value)";
            }
            return watts > 0 && Double.isFinite(watts) ? null : "a power cap must be greater than 0 watts";
        }

        @Override
        String format(Map<String, Double> value) {
            if (value.isEmpty()) {
                return NONE;
            }
            StringBuilder text = new StringBuilder();
            value.forEach((type, watts) -> text.append(text.isEmpty() ? "" : ",").append(type).append('=').append(watts));
            return text.toString();
        }

        @Override
        Object toSpec(Map<String, Double> value) {
            return value;
        }
    }
}
