package io.joulie.agent.control;

import io.joulie.api.v1alpha1.ControlResult;
import io.joulie.api.v1alpha1.NodePowerProfileStatus.Device;

import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one control action did, as the agent answers it in NodePowerProfile {@code status.applied.<family>}.
 *
 * @param observed numbers observed after the action
 * @param devices  per device (CPU package, GPU board) limits read after the action
 */
public record ControlOutcome(Backend backend, ControlResult result, String message, Map<Observed, Double> observed, List<Device> devices) {
    public ControlOutcome {
        observed = Collections.unmodifiableMap(observed.isEmpty() ? new EnumMap<>(Observed.class) : new EnumMap<>(observed));
        devices = List.copyOf(devices);
    }

    public ControlOutcome(Backend backend, ControlResult result, String message, Map<Observed, Double> observed) {
        this(backend, result, message, observed, List.of());
    }

    public static ControlOutcome none(Backend backend, String message) {
        return new ControlOutcome(backend, ControlResult.NONE, message, Map.of());
    }

    public static ControlOutcome blocked(Backend backend, String message, Map<Observed, Double> observed) {
        return new ControlOutcome(backend, ControlResult.BLOCKED, message, observed);
    }

    public ControlOutcome withObserved(Observed key, double value) {
        Map<Observed, Double> m = new EnumMap<>(Observed.class);
        m.putAll(observed);
        m.put(key, value);
        return new ControlOutcome(backend, result, message, m, devices);
    }

    /** A restore's outcome: limits written back are {@link ControlResult#RESTORED}, not the cap a profile asked for. */
    public ControlOutcome restored() {
        return result == ControlResult.APPLIED ? withResult(ControlResult.RESTORED) : this;
    }

    public ControlOutcome withResult(ControlResult result) {
        return new ControlOutcome(backend, result, message, observed, devices);
    }

    public ControlOutcome withMessage(String message) {
        return new ControlOutcome(backend, result, message, observed, devices);
    }

    public ControlOutcome withDevices(List<Device> devices) {
        return new ControlOutcome(backend, result, message, observed, devices);
    }

    /** {@link #observed()} as the status holds it: by key, sorted. */
    public Map<String, Double> observedByKey() {
        Map<String, Double> byKey = new TreeMap<>();
        observed.forEach((k, v) -> byKey.put(k.key(), v));
        return byKey;
    }
}
