package io.joulie.sim.cluster;

import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.planner.PlannerSetting;
import io.joulie.planner.PlannerSettings;

import java.time.Duration;
import java.util.Map;
import java.util.function.DoubleFunction;

/**
 * The {@code Joulie} resource the twin plans with: every planner setting in {@code spec.policy} (the one place for
 * them, docs/configuration.md), with every duration passed through {@code wall} (cluster mode compresses the simulated
 * clock, and the operator runs on wall time); the agents the operator would install kept to the twin's nodes, and no
 * monitoring objects.
 */
final class OperatorPolicy {
    private OperatorPolicy() {
    }

    /**
     * @param p           the settings the operator must plan with
     * @param tickSeconds the simulated planner interval
     * @param wall        a simulated number of seconds as the wall-clock duration to configure
     */
    static JoulieSpec.Policy of(PlannerSettings p, double tickSeconds, DoubleFunction<Duration> wall) {
        return JoulieSpec.Policy.of(PlannerSetting.specFields(p.toBuilder().reconcileInterval(wall.apply(tickSeconds))
                .downgradeTimeout(wall.apply(p.downgradeTimeout().toMillis() / 1000.0))
                .settleTime(wall.apply(p.settleTime().toMillis() / 1000.0))
                .capConfirmationTimeout(wall.apply(p.capConfirmationTimeout().toMillis() / 1000.0)).build()));
    }

    /** The resource {@code joulie} with this {@code spec.policy}. */
    static Joulie resource(JoulieSpec.Policy policy) {
        JoulieSpec.Agent agent = JoulieSpec.Agent.of("nodeSelector", Map.of(TwinObjects.SIM_LABEL, "true"));
        Joulie j = new Joulie();
        j.getMetadata().setName(Joulie.ACTIVE_NAME);
        j.getMetadata().setLabels(Map.of(TwinObjects.MANAGED_BY, "joulie-sim"));
        j.setSpec(new JoulieSpec(agent, policy, new JoulieSpec.Monitoring(false, false, false, null)));
        return j;
    }
}
