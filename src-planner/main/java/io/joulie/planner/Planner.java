package io.joulie.planner;

import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;

/**
 * One planning step: context → policy plan (with the rules, when configured) → guard verdict per node.
 * Cordoned nodes are frozen: they get no verdict, so nothing about them is written.
 *
 * <p>The step itself is pure ({@link RuleEngine#plan(ClusterContext, RuleState)}: the counting policy with the rules
 * composed on top); this class only keeps the rules' state (hysteresis, a held budget) from one call to the next.
 */
public final class Planner {
    private final PlannerSettings settings;
    private final PolicyModule policy;
    private final PolicyRules configuredRules;
    private final RuleEngine rules;
    private final StateGuard guard;
    private RuleState ruleState = RuleState.INITIAL;

    public Planner(PlannerSettings settings) {
        this(settings, PolicyRules.NONE);
    }

    public Planner(PlannerSettings settings, PolicyRules rules) {
        // A counting policy plans through the rules (with none, its own plan); rule_swap_v1 counts no nodes, so the
        // rules do not apply to it.
        this(settings, Policies.create(settings), rules, Policies.counting(settings).isPresent());
    }

    /**
     * A planner of {@code policy} alone, without rules, whatever the settings name: the simulator's hindsight optimizer
     * plans its schedules through the same guard as the policies (and tests of the guard's part use it).
     */
    public Planner(PlannerSettings settings, PolicyModule policy) {
        this(settings, policy, PolicyRules.NONE, false);
    }

    private Planner(PlannerSettings settings, PolicyModule policy, PolicyRules rules, boolean counting) {
        this.settings = settings;
        this.policy = policy;
        this.configuredRules = rules;
        this.rules = counting ? new RuleEngine(settings, rules) : null;
        this.guard = new StateGuard(settings.escalation(), settings.downgradeTimeout());
    }

    public PlannerSettings settings() {
        return settings;
    }

    public PolicyModule policy() {
        return policy;
    }

    /** The rules configured (rule_swap_v1 ignores them). */
    public PolicyRules rules() {
        return configuredRules;
    }

    /** The rules' state carried into the next tick. */
    public synchronized RuleState ruleState() {
        return ruleState;
    }

    /**
     * A planner for new settings and rules that carries the rules' state over from the one it replaces: the hot sets
     * survive while the hotspot rule is unchanged, a held budget count while the budget is.
     */
    public static Planner replacing(Planner previous, PlannerSettings settings, PolicyRules rules) {
        Planner next = new Planner(settings, rules);
        RuleState s = previous.ruleState();
        PolicyRules before = previous.rules();
        boolean sameHeat = Objects.equals(before.hotspots(), rules.hotspots()) && before.rackLabel().equals(rules.rackLabel());
        boolean sameBudget = before.budgetWatts().equals(rules.budgetWatts());
        next.ruleState = new RuleState(sameHeat ? s.hotNodes() : Set.of(), sameHeat ? s.hotRacks() : Set.of(),
                sameBudget ? s.budgetPerformanceNodes() : OptionalInt.empty());
        return next;
    }

    public synchronized TickPlan plan(ClusterContext context) {
        Plan plan;
        RuleReport report = RuleReport.NONE;
        if (rules == null) {
            plan = policy.plan(context);
        } else {
            RuleEngine.Result r = rules.plan(context, ruleState);
            plan = r.plan();
            report = r.report();
            ruleState = r.next();
        }
        List<Transition> transitions = new ArrayList<>(context.nodes().size());
        Map<String, ProfileCaps> caps = new HashMap<>(context.nodes().size() * 2);
        Map<String, NodePower> power = new HashMap<>(context.nodes().size() * 2);
        for (ManagedNode node : context.nodes()) {
            power.put(node.name(), node.power());
            Profile target = plan.targets().get(node.name());
            if (node.cordoned() || target == null) {
                continue;
            }
            PowerState requested = target == Profile.ECO ? PowerState.ActiveEco : PowerState.ActivePerformance;
            Transition t = guard.check(node, requested, plan.policyName(), context.now());
            String note = plan.notes().get(node.name());
            transitions.add(note == null ? t : t.withReason(t.reason() + "; " + note));
            caps.put(node.name(), settings.caps(t.to().profile(), node.labels()));
        }
        return new TickPlan(plan, transitions, context.released(), report, caps, power);
    }

    /**
     * The result of one planning step.
     *
     * @param caps  the caps each node with a verdict runs under, for the state it is in after the tick (the performance
     *              caps while it drains; the eco caps, with the eco CPU cap of its type, once eco)
     * @param power each planned node's power hardware, for the caps of its assignment
     */
    public record TickPlan(Plan plan, List<Transition> transitions, List<String> released, RuleReport rules,
                           Map<String, ProfileCaps> caps, Map<String, NodePower> power) {
        public TickPlan {
            transitions = List.copyOf(transitions);
            released = List.copyOf(released);
            caps = Map.copyOf(caps);
            power = Map.copyOf(power);
        }

        public TickPlan(Plan plan, List<Transition> transitions, List<String> released) {
            this(plan, transitions, released, RuleReport.NONE, Map.of(), Map.of());
        }

        /** The caps of a node the tick planned; a node without any gets the settings' caps of its profile. */
        public ProfileCaps caps(Transition t, PlannerSettings settings) {
            ProfileCaps c = caps.get(t.node());
            return c != null ? c : settings.caps(t.to().profile());
        }

        /** The verdict's assignment: the caps the tick chose for the node, for the node's hardware. */
        public NodeAssignment assignment(Transition t, PlannerSettings settings) {
            return NodeAssignment.of(t, caps(t, settings), plan.policyName(), power.getOrDefault(t.node(), NodePower.UNKNOWN));
        }

        public List<NodeAssignment> assignments(PlannerSettings settings) {
            return transitions.stream().map(t -> assignment(t, settings)).toList();
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
