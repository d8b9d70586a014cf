package io.joulie.agent.control;

import io.joulie.api.v1alpha1.TelemetryProfileStatus.Result;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one control action did, as written to {@code TelemetryProfile.status.control.<family>}.
 *
 * @param observed numbers observed after the action
 */
public record ControlOutcome(Backend backend, Result result, String message, Map<Observed, Double> observed) {
    public ControlOutcome {
        observed = Collections.unmodifiableMap(observed.isEmpty() ? new EnumMap<>(Observed.class) : new EnumMap<>(observed));
    }

    public static ControlOutcome none(Backend backend, String message) {
        return new ControlOutcome(backend, Result.NONE, message, Map.of());
    }

    public static ControlOutcome blocked(Backend backend, String message, Map<Observed, Double> observed) {
        return new ControlOutcome(backend, Result.BLOCKED, message, observed);
    }

    public ControlOutcome withObserved(Observed key, double value) {
        Map<Observed, Double> m = new EnumMap<>(Observed.class);
        m.putAll(observed);
        m.put(key, value);
        return new ControlOutcome(backend, result, message, m);
    }

    public ControlOutcome withMessage(String message) {
        return new ControlOutcome(backend, result, message, observed);
    }

    /** {@link #observed()} as the status holds it: by key, sorted. */
    public Map<String, Double> observedByKey() {
        Map<String, Double> byKey = new TreeMap<>();
        observed.forEach((k, v) -> byKey.put(k.key(), v));
        return byKey;
    }
}
