package io.joulie.sim.optimum;

import io.joulie.api.v1alpha1.Profile;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.EcoSelection;
import io.joulie.planner.ManagedNode;
import io.joulie.planner.Plan;
import io.joulie.planner.PolicyModule;
import io.joulie.sim.NodeType;
import io.joulie.sim.Simulation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A policy that knows the future: at tick i it wants the {@link Schedule}'s counts of performance nodes, chosen by the
 * operator's {@link EcoSelection} like every counting policy (over the whole cluster, or within each node type for a
 * per-type schedule); the operator's guard then drains, holds and commits exactly as for the real policies.
 */
final class ScheduledCount implements PolicyModule {
    private final Schedule schedule;
    private final List<String> types;
    private final double tickSeconds;

    /**
     * @param types the configuration's node type names, in order: the rows of a per-type schedule
     */
    ScheduledCount(Schedule schedule, List<String> types, double tickSeconds) {
        this.schedule = schedule;
        this.types = List.copyOf(types);
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
        int i = (int) Math.min(tick, Integer.MAX_VALUE);
        if (!schedule.byType()) {
            int hp = schedule.count(0, i);
            return new Plan(name(), EcoSelection.assign(eligible, hp), hp, "hp=schedule[" + tick + "]=" + hp);
        }
        Map<String, Profile> targets = new HashMap<>();
        int hp = 0;
        for (int r = 0; r < types.size(); r++) {
            String type = types.get(r);
            List<ManagedNode> ofType = new ArrayList<>();
            for (ManagedNode n : eligible) {
                if (type.equals(n.labels().get(NodeType.LABEL))) {
                    ofType.add(n);
                }
            }
            int want = Math.min(schedule.count(r, i), ofType.size());
            hp += want;
            targets.putAll(EcoSelection.assign(ofType, want));
        }
        return new Plan(name(), targets, hp, "hp=schedule[" + tick + "] by type=" + hp);
    }
}
