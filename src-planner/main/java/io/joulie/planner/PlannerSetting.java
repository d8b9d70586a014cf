package io.joulie.planner;

import io.joulie.api.text.Problems;
import io.joulie.api.text.Problems.DurationBound;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The table of planner settings: each row declares one setting once, with every name it has ({@code spec.policy} field
 * of the {@code Joulie} resource, the one place for planning settings; simulator parameter; and, until the next
 * release, the environment variable and {@code joulie.*} property the operator still honours under {@code spec.policy}
 * and reports, decision 136), its default, how its text is read and what makes a value invalid. Everything else is
 * derived from the rows: the {@code spec.policy} overlay and {@code status.effectivePolicy}, the operator's property
 * mapping and parser, the simulator's parameters and the {@code spec.policy} it plans with; a test holds
 * docs/configuration.md to them. The value kinds are {@link SettingKind}; the rules between fields
 * {@link CrossFieldRules}.
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
            SettingKind.POLICY, "static_partition", "base policy", PlannerSettings::policyType, PlannerSettings.Builder::policyType);
    public static final PlannerSetting<Double> STATIC_HP_FRAC = row("STATIC_HP_FRAC", "joulie.static-hp-frac",
            "staticHpFrac", SettingKind.FRACTION, "0.50", "static_partition share of performance nodes",
            PlannerSettings::staticHpFrac, PlannerSettings.Builder::staticHpFrac)
            .simulator("planner.staticHpFrac", "0.75");
    public static final PlannerSetting<Double> QUEUE_HP_BASE_FRAC = row("QUEUE_HP_BASE_FRAC", "joulie.queue-hp-base-frac",
            "queueHpBaseFrac", SettingKind.FRACTION, "0.60", "queue_aware_v1 base share",
            PlannerSettings::queueHpBaseFrac, PlannerSettings.Builder::queueHpBaseFrac)
            .simulator("planner.queueHpBaseFrac", "0.70");
    public static final PlannerSetting<Integer> QUEUE_HP_MIN = row("QUEUE_HP_MIN", "joulie.queue-hp-min", "queueHpMin",
            SettingKind.nodes(0), "1", "queue_aware_v1 lower bound", PlannerSettings::queueHpMin,
            PlannerSettings.Builder::queueHpMin)
            .simulator("planner.queueHpMin", "2");
    public static final PlannerSetting<Integer> QUEUE_HP_MAX = row("QUEUE_HP_MAX", "joulie.queue-hp-max", "queueHpMax",
            SettingKind.nodes(0), "1000000", "queue_aware_v1 upper bound", PlannerSettings::queueHpMax,
            PlannerSettings.Builder::queueHpMax)
            .simulator("planner.queueHpMax", "5");
    public static final PlannerSetting<Integer> QUEUE_PERF_PER_HP_NODE = row("QUEUE_PERF_PER_HP_NODE",
            "joulie.queue-perf-per-hp-node", "queuePerfPerHpNode", SettingKind.nodes(1), "10",
            "performance-only pods per performance node", PlannerSettings::queuePerfPerHpNode,
            PlannerSettings.Builder::queuePerfPerHpNode)
            .simulator("planner.queuePerfPerHpNode", "15");
    public static final PlannerSetting<OptionalDouble> PERFORMANCE_CAP_WATTS = row("PERFORMANCE_CAP_WATTS",
            "joulie.performance-cap-watts", "performanceCapWatts", SettingKind.OPTIONAL_WATTS, "none",
            "CPU cap of the performance profile, watts for the node; wins over the percent", PlannerSettings::performanceCapWatts,
            PlannerSettings.Builder::performanceCapWatts)
            .simulator("planner.performanceCapWatts", "500");
    public static final PlannerSetting<Double> PERFORMANCE_CAP_PERCENT = row("PERFORMANCE_CAP_PERCENT",
            "joulie.performance-cap-percent", "performanceCapPercent", SettingKind.PERCENT, "100",
            "CPU cap of the performance profile, percent of each package's maximum", PlannerSettings::performanceCapPercent,
            PlannerSettings.Builder::performanceCapPercent);
    public static final PlannerSetting<OptionalDouble> ECO_CAP_WATTS = row("ECO_CAP_WATTS", "joulie.eco-cap-watts", "ecoCapWatts",
            SettingKind.OPTIONAL_WATTS, "none", "CPU cap of the eco profile, watts for the node; wins over the percent",
            PlannerSettings::ecoCapWatts, PlannerSettings.Builder::ecoCapWatts)
            .simulator("planner.ecoCapWatts", "260");
    public static final PlannerSetting<Double> ECO_CAP_PERCENT = row("ECO_CAP_PERCENT", "joulie.eco-cap-percent", "ecoCapPercent",
            SettingKind.PERCENT, "60", "CPU cap of the eco profile, percent of each package's maximum", PlannerSettings::ecoCapPercent,
            PlannerSettings.Builder::ecoCapPercent);
    public static final PlannerSetting<OptionalDouble> GPU_PERFORMANCE_CAP_WATTS_PER_GPU = row("GPU_PERFORMANCE_CAP_WATTS_PER_GPU",
            "joulie.gpu-performance-cap-watts-per-gpu", "gpuPerformanceCapWattsPerGpu", SettingKind.OPTIONAL_WATTS, "none",
            "GPU cap of the performance profile, watts per board; wins over the percent",
            PlannerSettings::gpuPerformanceCapWattsPerGpu, PlannerSettings.Builder::gpuPerformanceCapWattsPerGpu)
            .simulator("planner.gpuPerformanceCapWattsPerGpu", "none");
    public static final PlannerSetting<Double> GPU_PERFORMANCE_CAP_PERCENT = row("GPU_PERFORMANCE_CAP_PERCENT",
            "joulie.gpu-performance-cap-percent", "gpuPerformanceCapPercent", SettingKind.PERCENT, "100",
            "GPU cap of the performance profile, percent of each board's maximum", PlannerSettings::gpuPerformanceCapPercent,
            PlannerSettings.Builder::gpuPerformanceCapPercent)
            .simulator("planner.gpuPerformanceCapPercent", "100");
    public static final PlannerSetting<OptionalDouble> GPU_ECO_CAP_WATTS_PER_GPU = row("GPU_ECO_CAP_WATTS_PER_GPU",
            "joulie.gpu-eco-cap-watts-per-gpu", "gpuEcoCapWattsPerGpu", SettingKind.OPTIONAL_WATTS, "none",
            "GPU cap of the eco profile, watts per board; wins over the percent", PlannerSettings::gpuEcoCapWattsPerGpu,
            PlannerSettings.Builder::gpuEcoCapWattsPerGpu)
            .simulator("planner.gpuEcoCapWattsPerGpu", "none");
    public static final PlannerSetting<Double> GPU_ECO_CAP_PERCENT = row("GPU_ECO_CAP_PERCENT", "joulie.gpu-eco-cap-percent",
            "gpuEcoCapPercent", SettingKind.PERCENT, "60", "GPU cap of the eco profile, percent of each board's maximum",
            PlannerSettings::gpuEcoCapPercent, PlannerSettings.Builder::gpuEcoCapPercent)
            .simulator("planner.gpuEcoCapPercent", "60");
    public static final PlannerSetting<Escalation> DOWNGRADE_ESCALATION = row("DOWNGRADE_ESCALATION",
            "joulie.downgrade-escalation", "downgradeEscalation", SettingKind.ESCALATION, "hold", "hold, force or evict",
            PlannerSettings::escalation, PlannerSettings.Builder::escalation)
            .simulator("planner.escalation", "hold");
    public static final PlannerSetting<Duration> DOWNGRADE_TIMEOUT = row("DOWNGRADE_TIMEOUT", "joulie.downgrade-timeout",
            "downgradeTimeout", SettingKind.duration(DurationBound.NOT_NEGATIVE), "30m", "drain time before escalation",
            PlannerSettings::downgradeTimeout, PlannerSettings.Builder::downgradeTimeout)
            .simulator("planner.downgradeTimeoutSeconds", "1800", SettingKind.SECONDS);
    public static final PlannerSetting<Duration> RECONCILE_INTERVAL = row("RECONCILE_INTERVAL", "joulie.reconcile-interval",
            "reconcileInterval", SettingKind.duration(DurationBound.POSITIVE), "1m", "planning interval",
            PlannerSettings::reconcileInterval, PlannerSettings.Builder::reconcileInterval);
    public static final PlannerSetting<Duration> SETTLE_TIME = row("SETTLE_TIME", "joulie.settle-time", "settleTime",
            SettingKind.duration(DurationBound.POSITIVE), "5s", "time a draining node shows no performance-only pod before eco",
            PlannerSettings::settleTime, PlannerSettings.Builder::settleTime);
    public static final PlannerSetting<Duration> CAP_CONFIRMATION_TIMEOUT = row("CAP_CONFIRMATION_TIMEOUT",
            "joulie.cap-confirmation-timeout", "capConfirmationTimeout", SettingKind.duration(DurationBound.POSITIVE), "5m",
            "wait for the agent to confirm a performance cap before a Warning", PlannerSettings::capConfirmationTimeout,
            PlannerSettings.Builder::capConfirmationTimeout);
    public static final PlannerSetting<Integer> MAX_TRANSITIONS_PER_TICK = row("MAX_TRANSITIONS_PER_TICK",
            "joulie.max-transitions-per-tick", "maxTransitionsPerTick", SettingKind.count(1), "100",
            "nodes that change state per reconcile interval, ticks and rechecks together", PlannerSettings::maxTransitionsPerTick,
            PlannerSettings.Builder::maxTransitionsPerTick);
    public static final PlannerSetting<Integer> MAX_EVICTIONS_PER_TICK = row("MAX_EVICTIONS_PER_TICK",
            "joulie.max-evictions-per-tick", "maxEvictionsPerTick", SettingKind.count(1), "10",
            "pods evicted per reconcile interval",
            PlannerSettings::maxEvictionsPerTick, PlannerSettings.Builder::maxEvictionsPerTick);
    public static final PlannerSetting<Double> DEMAND_HEADROOM_FRAC = row("DEMAND_HEADROOM_FRAC",
            "joulie.demand-headroom-frac", "demandHeadroomFrac", SettingKind.HEADROOM, "0.2",
            "demand_sized_v1 spare performance capacity", PlannerSettings::demandHeadroomFrac,
            PlannerSettings.Builder::demandHeadroomFrac)
            .simulator("planner.demandHeadroomFrac", "0.2");
    public static final PlannerSetting<Map<String, Double>> ECO_CAP_WATTS_BY_TYPE = row("ECO_CAP_WATTS_BY_TYPE",
            "joulie.eco-cap-watts-by-type", "ecoCapWattsByType", SettingKind.CAPS_BY_TYPE, "none", "eco cap by node type",
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
    private final SettingKind<T> kind;
    private final String defaultText;
    private final String meaning;
    private final Function<PlannerSettings, T> get;
    private final BiConsumer<PlannerSettings.Builder, T> set;
    private final String simKey;
    private final String simDefault;
    private final SettingKind<T> simKind;

    private PlannerSetting(String env, String property, String specField, SettingKind<T> kind, String defaultText, String meaning,
                           Function<PlannerSettings, T> get, BiConsumer<PlannerSettings.Builder, T> set, String simKey,
                           String simDefault, SettingKind<T> simKind) {
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

    /**
     * A setting of this release's table: its {@code spec.policy} field and, honoured under it until the next release
     * and reported (decision 136), its environment variable and property. Do not add settings with this: use
     * {@link #spec}.
     */
    private static <T> PlannerSetting<T> row(String env, String property, String specField, SettingKind<T> kind,
                                             String defaultText, String meaning, Function<PlannerSettings, T> get,
                                             BiConsumer<PlannerSettings.Builder, T> set) {
        return new PlannerSetting<>(env, property, specField, kind, defaultText, meaning, get, set, null, null, null);
    }

    /**
     * A setting that lives in {@code spec.policy} only, as every setting added from decision 136 on: no environment
     * variable and no property; the operator reads it from the {@code Joulie} resource alone.
     */
    static <T> PlannerSetting<T> spec(String specField, SettingKind<T> kind, String defaultText, String meaning,
                                      Function<PlannerSettings, T> get, BiConsumer<PlannerSettings.Builder, T> set) {
        return new PlannerSetting<>(null, null, specField, kind, defaultText, meaning, get, set, null, null, null);
    }

    private PlannerSetting<T> simulator(String key, String defaultValue) {
        return simulator(key, defaultValue, kind);
    }

    /** The simulator's parameter for this setting, its default there and how its text is read. */
    private PlannerSetting<T> simulator(String key, String defaultValue, SettingKind<T> textKind) {
        return new PlannerSetting<>(env, property, specField, kind, defaultText, meaning, get, set, key, defaultValue, textKind);
    }

    /**
     * The environment variable honoured until the next release, e.g. {@code STATIC_HP_FRAC}; null for a setting that
     * lives in {@code spec.policy} only ({@link #inEnvironment()}).
     */
    public String env() {
        return env;
    }

    /** The property of {@link #env()}, e.g. {@code joulie.static-hp-frac}; null when it has none. */
    public String property() {
        return property;
    }

    /** Whether the operator's environment may still set it (until the next release, reported; decision 136). */
    public boolean inEnvironment() {
        return env != null;
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

    /**
     * What the setting means, in a few words, naming its field: {@code cap of the eco profile (spec.policy.ecoCapWatts)}.
     */
    public String meaning() {
        return meaning + " (spec.policy." + specField + ")";
    }

    public T get(PlannerSettings s) {
        return get.apply(s);
    }

    void set(PlannerSettings.Builder b, T value) {
        set.accept(b, value);
    }

    SettingKind<T> kind() {
        return kind;
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
            if (!s.readsTextFrom(source)) {
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
            CrossFieldRules.capsInOrder(b.build(), where, where, problems);
        }
        return new Read(problems.lines().size() == before ? Optional.of(b.build()) : Optional.empty(), unknownPolicy);
    }

    /**
     * Whether {@link #read} takes this setting's text from {@code source}: the simulator only where it has a parameter,
     * the environment only where it has a variable; the setting keeps its default otherwise.
     */
    boolean readsTextFrom(Source source) {
        return switch (source) {
            case SIMULATOR -> simKey != null;
            case ENVIRONMENT -> env != null;
            case SPEC_POLICY -> false;
        };
    }

    /** Settings read from text, and the unknown {@code POLICY_TYPE} that was replaced by static_partition, if any. */
    public record Read(Optional<PlannerSettings> settings, Optional<String> unknownPolicy) {
    }

    /** Reads the documented default into {@code b}; a problem names the {@code spec.policy} field. */
    void readDefault(Problems problems, PlannerSettings.Builder b) {
        readText(Source.ENVIRONMENT, defaultText, "spec.policy." + specField + " default", problems, b);
    }

    private void readText(Source source, String text, String where, Problems problems, PlannerSettings.Builder b) {
        if (text == null) {
            problems.add(where + " is not set");
            return;
        }
        SettingKind<T> k = source == Source.SIMULATOR ? simKind : kind;
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
                CrossFieldRules.boundsInOrder(field, b.build(), problems);
            }
        }
        CrossFieldRules.onePerCap(field, b, problems);
        if (problems.lines().size() == before) {
            CrossFieldRules.capsInOrder(b.build(), row -> "spec.policy." + row.specField, row -> row.specField, problems);
        }
        return problems.lines().size() == before ? Optional.of(b.build()) : Optional.empty();
    }

    private void overlayField(Object value, Problems problems, PlannerSettings.Builder b) {
        if (value == null) {
            return;
        }
        String where = "spec.policy." + specField;
        kind.fromSpec(where, value, problems).filter(v -> kind.check(where, value, v, Source.SPEC_POLICY, problems))
                .ifPresent(v -> set.accept(b, v));
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

    /** The documented defaults, read from the table ({@link PlannerSettings#defaults()} keeps them). */
    static PlannerSettings documentedDefaults() {
        PlannerSettings.Builder b = new PlannerSettings.Builder();
        Problems problems = new Problems();
        ALL.forEach(s -> s.readDefault(problems, b));
        problems.throwIfAny("The planner's documented defaults are invalid");
        return b.build();
    }
}
