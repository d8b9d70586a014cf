package io.joulie.planner;

import java.util.OptionalInt;
import java.util.Set;

/**
 * What the rules carry from one tick to the next, as a value: the planner passes the previous tick's
 * state in and gets the next one back.
 *
 * @param hotNodes               nodes hot on their own temperature (hysteresis)
 * @param hotRacks               racks hot by their mean temperature (hysteresis)
 * @param budgetPerformanceNodes the performance node count the budget allowed on the last tick with
 *                               usable power data; held while telemetry is unavailable
 */
public record RuleState(Set<String> hotNodes, Set<String> hotRacks, OptionalInt budgetPerformanceNodes) {
    public static final RuleState INITIAL = new RuleState(Set.of(), Set.of(), OptionalInt.empty());

    public RuleState {
        hotNodes = Set.copyOf(hotNodes);
        hotRacks = Set.copyOf(hotRacks);
    }
}
