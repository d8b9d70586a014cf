package io.joulie.planner;

import io.joulie.api.text.Durations;
import io.joulie.api.text.LabelSelector;
import io.joulie.api.text.Problems;
import io.joulie.api.text.Problems.DurationBound;
import io.joulie.planner.PlannerSetting.Source;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * How a setting's value is read, written and checked. {@code strict} checks apply to {@code spec.policy} only.
 */
abstract class SettingKind<T> {
    static final SettingKind<Double> FRACTION = Numeric.decimal(v -> Double.isFinite(v) && v >= 0 && v <= 1,
            "must be between 0 and 1", true);
    static final SettingKind<Double> PERCENT = Numeric.decimal(v -> Double.isFinite(v) && v > 0 && v <= 100,
            "a percent cap must be greater than 0 and at most 100", false);
    /** Watts, or {@code none}: not set (the percent of the same cap applies). */
    static final SettingKind<OptionalDouble> OPTIONAL_WATTS = new SettingKind<>() {
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
    static final SettingKind<Escalation> ESCALATION = new Choice<>(Escalation::fromConfig, Escalation::configValue,
            "must be hold, force or evict");
    static final SettingKind<PolicyType> POLICY = new Choice<>(PolicyType::fromConfig, PolicyType::policyName,
            "is not a known policy (" + PolicyType.knownValues() + ")");
    /** A share of capacity on top of a demand: no upper bound, never negative (everywhere). */
    static final SettingKind<Double> HEADROOM = Numeric.decimal(v -> Double.isFinite(v) && v >= 0, "must be at least 0", false);
    /** Eco caps by node type. */
    static final SettingKind<Map<String, Double>> CAPS_BY_TYPE = new CapsByType();
    /** A number of seconds (the simulator's {@code planner.downgradeTimeoutSeconds}). */
    static final SettingKind<Duration> SECONDS = new SettingKind<>() {
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
    static SettingKind<Integer> nodes(int min) {
        return Numeric.whole(v -> v >= min, "must be at least " + min, true);
    }

    /** A limit: at least {@code min} everywhere (nothing would normalise a limit of 0). */
    static SettingKind<Integer> count(int min) {
        return Numeric.whole(v -> v >= min, "must be at least " + min, false);
    }

    static SettingKind<Duration> duration(DurationBound bound) {
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

    /**
     * A number whose value must pass {@code accepts}: always, or ({@code strictOnly}) in {@code spec.policy} only, where
     * it comes as a JSON number.
     */
    private static final class Numeric<T extends Number> extends SettingKind<T> {
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
    private static final class Length extends SettingKind<Duration> {
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
    private static final class Choice<T> extends SettingKind<T> {
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
    private static final class CapsByType extends SettingKind<Map<String, Double>> {
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
