package io.joulie.planner;

import java.util.List;
import java.util.Optional;

/**
 * What the rules did on one tick: for logs, metrics, the {@code Joulie} status and Events.
 *
 * @param window          the open schedule window, if any
 * @param telemetry       the telemetry status this tick
 * @param telemetryDetail why telemetry is unavailable (empty otherwise)
 * @param hotNodes        eligible nodes that count as hot (own temperature or rack mean), sorted
 * @param ecoByHotspot    hot nodes that are eco this tick
 * @param budget          the budget's verdict, when a budget is configured
 */
public record RuleReport(Optional<String> window, Telemetry.Status telemetry, String telemetryDetail,
                         List<String> hotNodes, int ecoByHotspot, Optional<Budget> budget) {

    public static final RuleReport NONE = new RuleReport(Optional.empty(), Telemetry.Status.DISABLED, "", List.of(), 0,
            Optional.empty());

    public RuleReport {
        hotNodes = List.copyOf(hotNodes);
    }

    /**
     * @param limitWatts       the budget
     * @param estimateWatts    the estimated sum after the budget acted (NaN when the count was held)
     * @param basis            {@code measured} (telemetry, caps for nodes without a sample), {@code caps}
     *                         (no telemetry configured) or {@code held} (telemetry unavailable: last count kept)
     * @param met              whether the estimate fits the budget
     * @param ecoNodes         nodes the budget moved to eco beyond what the policy and schedule asked
     */
    public record Budget(double limitWatts, double estimateWatts, String basis, boolean met, int ecoNodes) {
    }
}
