package io.joulie.agent.backend;

import io.joulie.api.v1alpha1.TelemetryProfileStatus.Result;

import java.util.Map;
import java.util.TreeMap;

/**
 * What one control action did, as written to {@code TelemetryProfile.status.control.cpu}.
 *
 * @param backend  powercap, dvfs, http or none
 * @param observed numbers observed after the action (capWatts, capWattsPerPackage, throttlePct, ...)
 */
public record ControlOutcome(String backend, Result result, String message, Map<String, Double> observed) {
    public ControlOutcome {
        observed = java.util.Collections.unmodifiableMap(new TreeMap<>(observed));
    }

    public static ControlOutcome none(String backend, String message) {
        return new ControlOutcome(backend, Result.NONE, message, Map.of());
    }

    public static ControlOutcome blocked(String backend, String message, Map<String, Double> observed) {
        return new ControlOutcome(backend, Result.BLOCKED, message, observed);
    }

    public ControlOutcome withObserved(String key, double value) {
        Map<String, Double> m = new TreeMap<>(observed);
        m.put(key, value);
        return new ControlOutcome(backend, result, message, m);
    }
}
