package io.joulie.sim.cluster;

import io.joulie.api.text.Durations;
import io.joulie.operator.planner.PlannerSettings;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.DoubleFunction;

/**
 * The planner settings as the operator's environment variables (docs/configuration.md), with every duration passed
 * through {@code wall}: cluster mode compresses the simulated clock, and the operator runs on wall time.
 */
final class OperatorEnvironment {
    private OperatorEnvironment() {
    }

    /**
     * @param p           the settings the operator must plan with
     * @param tickSeconds the simulated planner interval
     * @param wall        a simulated number of seconds as the wall-clock duration to configure
     */
    static Map<String, String> of(PlannerSettings p, double tickSeconds, DoubleFunction<Duration> wall) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("RECONCILE_INTERVAL", Durations.format(wall.apply(tickSeconds)));
        env.put("POLICY_TYPE", p.policyType().configValue());
        env.put("STATIC_HP_FRAC", Double.toString(p.staticHpFrac()));
        env.put("QUEUE_HP_BASE_FRAC", Double.toString(p.queueHpBaseFrac()));
        env.put("QUEUE_HP_MIN", Integer.toString(p.queueHpMin()));
        env.put("QUEUE_HP_MAX", Integer.toString(p.queueHpMax()));
        env.put("QUEUE_PERF_PER_HP_NODE", Integer.toString(p.queuePerfPerHpNode()));
        env.put("PERFORMANCE_CAP_WATTS", Double.toString(p.performanceCapWatts()));
        env.put("ECO_CAP_WATTS", Double.toString(p.ecoCapWatts()));
        env.put("ECO_CAP_WATTS_BY_TYPE", String.join(",", p.ecoCapWattsByType().entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).toList()));
        env.put("DEMAND_HEADROOM_FRAC", Double.toString(p.demandHeadroomFrac()));
        env.put("DOWNGRADE_ESCALATION", p.escalation().configValue());
        env.put("DOWNGRADE_TIMEOUT", Durations.format(wall.apply(p.downgradeTimeout().toMillis() / 1000.0)));
        return env;
    }
}
