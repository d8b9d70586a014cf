package io.joulie.planner;

import java.util.List;
import java.util.OptionalDouble;

/**
 * The rules that run before the base policy (docs/policies.md#rules): schedules, a cluster power budget
 * and hotspots.
 *
 * @param schedules   windows in order; the first open one wins
 * @param budgetWatts upper bound on the managed nodes' summed CPU package power
 * @param hotspots    hotspot detection, or {@code null} when off
 * @param rackLabel   node label whose value names the node's rack
 */
public record PolicyRules(List<ScheduleWindow> schedules, OptionalDouble budgetWatts, Hotspots hotspots,
                          String rackLabel) {

    /** The default rack label. */
    public static final String DEFAULT_RACK_LABEL = "joulie.io/rack";

    /** No rules: the base policy alone. */
    public static final PolicyRules NONE = new PolicyRules(List.of(), OptionalDouble.empty(), null, DEFAULT_RACK_LABEL);

    public PolicyRules {
        schedules = List.copyOf(schedules);
        rackLabel = rackLabel == null || rackLabel.isBlank() ? DEFAULT_RACK_LABEL : rackLabel;
    }

    public boolean isEmpty() {
        return schedules.isEmpty() && budgetWatts.isEmpty() && hotspots == null;
    }

    /**
     * A node (or a rack by its mean) becomes hot above {@code thresholdCelsius} and cools down below
     * {@code thresholdCelsius - hysteresisCelsius}.
     */
    public record Hotspots(double thresholdCelsius, double hysteresisCelsius) {
        public Hotspots {
            hysteresisCelsius = Math.max(0, hysteresisCelsius);
        }

        boolean hot(double celsius, boolean wasHot) {
            return wasHot ? celsius >= thresholdCelsius - hysteresisCelsius : celsius > thresholdCelsius;
        }
    }
}
