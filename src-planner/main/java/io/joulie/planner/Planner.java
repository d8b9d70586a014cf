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
        this.guard = new StateGuard(settings);
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

    /** The guard this planner checks transitions with. */
    public StateGuard guard() {
        return guard;
    }

    /**
     * A planner with these settings and rules that starts from {@code state} (a held budget count kept in the
     * {@code Joulie} status across a restart).
     */
    public static Planner resuming(PlannerSettings settings, PolicyRules rules, RuleState state) {
        Planner p = new Planner(settings, rules);
        p.ruleState = state;
        return p;
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
        List<ManagedNode> checked = new ArrayList<>(context.nodes().size());
        for (ManagedNode node : context.nodes()) {
            Profile target = plan.targets().get(node.name());
            if (node.cordoned() || target == null) {
                continue;
            }
            PowerState requested = target == Profile.ECO ? PowerState.ActiveEco : PowerState.ActivePerformance;
            Transition t = guard.check(node, requested, plan.policyName(), context.now());
            String note = plan.notes().get(node.name());
            transitions.add(note == null ? t : t.withReason(t.reason() + "; " + note));
            checked.add(node);
        }
        return tickPlan(plan, context, checked, transitions, context.released(), report);
    }

    /**
     * The guard's step between ticks for the nodes of {@code context} (the ones a watch reported something about), each
     * heading where the last tick's plan sent it (where its state says, for a node that plan did not have): no policy,
     * no rules, nothing released. Rescues, drains committing eco after their settle time, labels the agent's confirmation
     * allows, and a write of the last plan that failed; the reasons of nodes that stay keep what the last tick wrote.
     * Cordoned nodes are left alone, as in a tick.
     *
     * @param policyName the policy the last tick planned with (named in the reasons of moves)
     * @param targets    the last tick's targets
     */
    public TickPlan recheck(ClusterContext context, String policyName, java.util.Map<String, Profile> targets) {
        List<Transition> transitions = new ArrayList<>();
        List<ManagedNode> checked = new ArrayList<>();
        for (ManagedNode node : context.nodes()) {
            if (!node.cordoned()) {
                Profile target = targets.get(node.name());
                PowerState heading = target == null ? null : target == Profile.ECO ? PowerState.ActiveEco : PowerState.ActivePerformance;
                transitions.add(guard.recheck(node, heading, policyName, context.now()));
                checked.add(node);
            }
        }
        Plan plan = new Plan(policyName, java.util.Map.of(), 0, "recheck of " + checked.size() + " node(s)");
        return tickPlan(plan, context, checked, transitions, List.of(), RuleReport.NONE);
    }

    /**
     * The step's plan: its verdicts within the blast radius ({@link #limited}), the caps each checked node runs under
     * for the state it is in after them (the eco CPU cap of its type, once eco), and each node's power hardware.
     * {@code checked} and {@code transitions} are aligned.
     */
    private TickPlan tickPlan(Plan plan, ClusterContext context, List<ManagedNode> checked, List<Transition> transitions,
                              List<String> released, RuleReport report) {
        List<Transition> verdicts = limited(checked, transitions);
        Map<String, ProfileCaps> caps = new HashMap<>(checked.size() * 2);
        for (int i = 0; i < checked.size(); i++) {
            caps.put(checked.get(i).name(), settings.caps(verdicts.get(i).to().profile(), checked.get(i).labels()));
        }
        Map<String, NodePower> power = new HashMap<>(context.nodes().size() * 2);
        Map<String, NodeAssignment.Basis> basis = new HashMap<>(context.nodes().size() * 2);
        context.nodes().forEach(n -> {
            power.put(n.name(), n.power());
            basis.put(n.name(), NodeAssignment.Basis.of(n));
        });
        return new TickPlan(plan, verdicts, released, report, caps, power, basis);
    }

    /**
     * At most {@code maxTransitionsPerTick} nodes change state (the blast radius of a bad plan): rescues always go and
     * count; then raises to performance, then drains committing eco, then new drains, each in node order; the rest
     * stay where they are this tick ({@link Outcome#DEFERRED}).
     */
    private List<Transition> limited(List<ManagedNode> nodes, List<Transition> transitions) {
        int limit = settings.maxTransitionsPerTick();
        long changing = transitions.stream().filter(Transition::changed).count();
        if (changing <= limit) {
            return transitions;
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < transitions.size(); i++) {
            if (transitions.get(i).changed()) {
                order.add(i);
            }
        }
        order.sort(java.util.Comparator.comparingInt(i -> priority(transitions.get(i))));
        List<Transition> out = new ArrayList<>(transitions);
        int allowed = 0;
        for (int i : order) {
            Transition t = transitions.get(i);
            if (t.outcome() == Outcome.RESCUED || allowed < limit) {
                allowed++;
                continue;
            }
            out.set(i, guard.defer(nodes.get(i), t.requested(), "deferred to a later tick: at most " + limit
                    + " nodes change state in one tick (MAX_TRANSITIONS_PER_TICK); heading " + t.to()));
        }
        return out;
    }

    private static int priority(Transition t) {
        if (t.outcome() == Outcome.RESCUED) {
            return 0;
        }
        if (t.to() == PowerState.ActivePerformance) {
            return 1;
        }
        return t.to() == PowerState.ActiveEco ? 2 : 3;
    }

    /**
     * The result of one planning step.
     *
     * @param caps  the caps each node with a verdict runs under, for the state it is in after the tick (the performance
     *              caps while it drains; the eco caps, with the eco CPU cap of its type, once eco)
     * @param power each planned node's power hardware, for the caps of its assignment
     * @param basis each planned node as the view the plan was made on showed it, for the writes' preconditions
     */
    public record TickPlan(Plan plan, List<Transition> transitions, List<String> released, RuleReport rules,
                           Map<String, ProfileCaps> caps, Map<String, NodePower> power, Map<String, NodeAssignment.Basis> basis) {
        public TickPlan {
            transitions = List.copyOf(transitions);
            released = List.copyOf(released);
            caps = Map.copyOf(caps);
            power = Map.copyOf(power);
            basis = Map.copyOf(basis);
        }

        public TickPlan(Plan plan, List<Transition> transitions, List<String> released) {
            this(plan, transitions, released, RuleReport.NONE, Map.of(), Map.of(), Map.of());
        }

        /** The caps of a node the tick planned; a node without any gets the settings' caps of its profile. */
        public ProfileCaps caps(Transition t, PlannerSettings settings) {
            ProfileCaps c = caps.get(t.node());
            return c != null ? c : settings.caps(t.to().profile());
        }

        /** The verdict's assignment: the caps the tick chose for the node, for the node's hardware. */
        public NodeAssignment assignment(Transition t, PlannerSettings settings) {
            return NodeAssignment.of(t, caps(t, settings), plan.policyName(), power.getOrDefault(t.node(), NodePower.UNKNOWN),
                    basis.get(t.node()));
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
