package io.joulie.operator.planner;

import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;

import java.util.ArrayList;
import java.util.List;

/**
 * One planning step, pure: context → policy plan → guard verdict per node. Cordoned nodes are frozen:
 * they get no verdict, so nothing about them is written.
 */
public final class Planner {
    private final PlannerSettings settings;
    private final PolicyModule policy;
    private final StateGuard guard;

    public Planner(PlannerSettings settings) {
        this(settings, Policies.create(settings));
    }

    public Planner(PlannerSettings settings, PolicyModule policy) {
        this.settings = settings;
        this.policy = policy;
        this.guard = new StateGuard(settings.escalation(), settings.downgradeTimeout());
    }

    public PlannerSettings settings() {
        return settings;
    }

    public PolicyModule policy() {
        return policy;
    }

    public TickPlan plan(ClusterContext context) {
        Plan plan = policy.plan(context);
        List<Transition> transitions = new ArrayList<>(context.nodes().size());
        for (ManagedNode node : context.nodes()) {
            Profile target = plan.targets().get(node.name());
            if (node.cordoned() || target == null) {
                continue;
            }
            PowerState requested = target == Profile.ECO ? PowerState.ActiveEco : PowerState.ActivePerformance;
            transitions.add(guard.check(node, requested, plan.policyName(), context.now()));
        }
        return new TickPlan(plan, transitions, context.released());
    }

    /** The result of one planning step. */
    public record TickPlan(Plan plan, List<Transition> transitions, List<String> released) {
        public TickPlan {
            transitions = List.copyOf(transitions);
            released = List.copyOf(released);
        }

        public List<NodeAssignment> assignments(PlannerSettings settings) {
            return transitions.stream().map(t -> NodeAssignment.of(t, settings, plan.policyName())).toList();
        }

        /**
         * Nodes the plan sends elsewhere than they were heading: a performance node planned eco, or an eco
         * or draining node planned performance.
         */
        public long reassignments() {
            return transitions.stream().filter(t -> heading(t.from()) != t.requested()).count();
        }

        private static PowerState heading(PowerState s) {
            return s == PowerState.ActivePerformance ? PowerState.ActivePerformance : PowerState.ActiveEco;
        }
    }
}
