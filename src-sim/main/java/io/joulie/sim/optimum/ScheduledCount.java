package io.joulie.sim.optimum;

import io.joulie.planner.ClusterContext;
import io.joulie.planner.EcoSelection;
import io.joulie.planner.Plan;
import io.joulie.planner.PolicyModule;
import io.joulie.sim.Simulation;

import java.time.Duration;

/**
 * A policy that knows the future: at tick i it wants {@code schedule[i]} performance nodes (the last value after
 * the end), chosen by the operator's {@link EcoSelection} like every counting policy; the operator's guard then
 * drains, holds and commits exactly as for the real policies.
 */
final class ScheduledCount implements PolicyModule {
    private final int[] schedule;
    private final double tickSeconds;

    ScheduledCount(int[] schedule, double tickSeconds) {
        this.schedule = schedule.clone();
        this.tickSeconds = tickSeconds;
    }

    @Override
    public String name() {
        return "hindsight-schedule";
    }

    @Override
    public Plan plan(ClusterContext context) {
        var eligible = context.eligible();
        long tick = Math.round(Duration.between(Simulation.EPOCH, context.now()).toMillis() / 1000.0 / tickSeconds);
        int hp = schedule[(int) Math.min(tick, schedule.length - 1)];
        return new Plan(name(), EcoSelection.assign(eligible, hp), hp, "hp=schedule[" + tick + "]=" + hp);
    }
}
