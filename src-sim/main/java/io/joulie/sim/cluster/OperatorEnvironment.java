package io.joulie.sim.cluster;

import io.joulie.planner.PlannerSetting;
import io.joulie.planner.PlannerSettings;

import java.time.Duration;
import java.util.Map;
import java.util.function.DoubleFunction;

/**
 * The planner settings as the operator's environment variables (the settings table, docs/configuration.md), with
 * every duration passed through {@code wall}: cluster mode compresses the simulated clock, and the operator runs on
 * wall time.
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
        return PlannerSetting.environment(p.toBuilder().reconcileInterval(wall.apply(tickSeconds))
                .downgradeTimeout(wall.apply(p.downgradeTimeout().toMillis() / 1000.0))
                .settleTime(wall.apply(p.settleTime().toMillis() / 1000.0))
                .capConfirmationTimeout(wall.apply(p.capConfirmationTimeout().toMillis() / 1000.0)).build());
    }
}
