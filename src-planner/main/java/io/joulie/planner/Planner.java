package io.joulie.planner;

import io.joulie.api.text.Durations;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * One planning step: context → policy plan (with the rules, when configured) → guard verdict per node.
 * Cordoned nodes are frozen: they get no verdict, so nothing about them is written, except a rescue (a performance-only
 * pod under the eco cap: the cap goes back up whatever the node's scheduling status).
 *
 * <p>The blast radius is kept over time, ticks and rechecks together (decision 154): state changes draw on a
 * {@link RateBudget} of {@code maxTransitionsPerTick} per reconcile interval, and each node's rescues on a sliding
 * window of {@link #RESCUES_PER_NODE} per {@link #RESCUE_WINDOW} (decision 156).
 *
 * <p>The step itself is pure ({@link RuleEngine#plan(ClusterContext, RuleState)}: the counting policy with the rules
 * composed on top); this class only keeps the rules' state (hysteresis, a held budget) from one call to the next.
 */
public final class Planner {
    /** At most this many rescues of one node within {@link #RESCUE_WINDOW}; one more is held (decision 156). */
    public static final int RESCUES_PER_NODE = 5;
    /** The sliding window of {@link #RESCUES_PER_NODE}. */
    public static final Duration RESCUE_WINDOW = Duration.ofMinutes(10);

    private final PlannerSettings settings;
    private final PolicyModule policy;
    private final PolicyRules configuredRules;
    private final RuleEngine rules;
    private final StateGuard guard;
    private RuleState ruleState = RuleState.INITIAL;
    /** State changes of ticks and rechecks together; carried over when the settings change. */
    private RateBudget transitionBudget = new RateBudget();
    /** Each node's rescues in the last {@link #RESCUE_WINDOW}; carried over when the settings change. */
    private RescueLog rescues = new RescueLog();

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
        next.transitionBudget = previous.transitionBudget;
        next.rescues = previous.rescues;
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
            if (node.cordoned()) {
                rescueOfCordoned(node, plan.policyName(), context.now()).ifPresent(t -> {
                    transitions.add(t);
                    checked.add(node);
                });
                continue;
            }
            if (target == null) {
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

    /** A cordoned node's verdict: only a rescue; every other change waits until it is uncordoned. */
    private Optional<Transition> rescueOfCordoned(ManagedNode node, String policyName, Instant now) {
        if (node.violators().isEmpty()) {
            return Optional.empty();
        }
        Transition t = guard.check(node, PowerState.ActiveEco, policyName, now);
        return t.outcome() == Outcome.RESCUED ? Optional.of(t) : Optional.empty();
    }

    /**
     * The guard's step between ticks for the nodes of {@code context} (the ones a watch reported something about), each
     * heading where the last tick's plan sent it (where its state says, for a node that plan did not have): no policy,
     * no rules, nothing released. Only rescues, commits (a drain committing eco after its settle time, a forced commit
     * once the timeout has passed) and labels the agent's confirmation allows: a recheck never starts a drain nor
     * raises a node to performance (those wait for the next tick, {@link Outcome#DEFERRED} here); the reasons of nodes
     * that stay keep what the last tick wrote. Cordoned nodes get rescues only, as in a tick. Synchronized with
     * {@link #plan} (both pure and quick) because both draw on the transition budget and the rescue log.
     *
     * @param policyName the policy the last tick planned with (named in the reasons of moves)
     * @param targets    the last tick's targets
     */
    public synchronized TickPlan recheck(ClusterContext context, String policyName, java.util.Map<String, Profile> targets) {
        List<Transition> transitions = new ArrayList<>();
        List<ManagedNode> checked = new ArrayList<>();
        for (ManagedNode node : context.nodes()) {
            if (node.cordoned()) {
                rescueOfCordoned(node, policyName, context.now()).ifPresent(t -> {
                    transitions.add(t);
                    checked.add(node);
                });
                continue;
            }
            Profile target = targets.get(node.name());
            PowerState heading = target == null ? null : target == Profile.ECO ? PowerState.ActiveEco : PowerState.ActivePerformance;
            Transition t = guard.recheck(node, heading, policyName, context.now());
            transitions.add(rechecks(t) ? t : guard.defer(node, t.requested(), node.reason().isEmpty()
                    ? "waits for the next tick: heading " + t.to() : node.reason()));
            checked.add(node);
        }
        Plan plan = new Plan(policyName, java.util.Map.of(), 0, "recheck of " + checked.size() + " node(s)");
        return tickPlan(plan, context, checked, transitions, List.of(), RuleReport.NONE);
    }

    /**
     * Whether a recheck may act on this verdict: no state change (a label, a cap report), a rescue (also the raise of a
     * node with a performance-only pod under its eco cap that the last plan wanted performance anyway), or a commit (a
     * drain reaching ActiveEco, forced or not). Never a new drain nor any other raise to performance.
     */
    static boolean rechecks(Transition t) {
        return !t.changed() || t.outcome() == Outcome.RESCUED || t.to() == PowerState.ActiveEco;
    }

    /**
     * The step's plan: its verdicts within the blast radius ({@link #limited}), the caps each checked node runs under
     * for the state it is in after them (the eco CPU cap of its type, once eco), and each node's power hardware.
     * {@code checked} and {@code transitions} are aligned.
     */
    private TickPlan tickPlan(Plan plan, ClusterContext context, List<ManagedNode> checked, List<Transition> transitions,
                              List<String> released, RuleReport report) {
        List<Transition> verdicts = limited(checked, held(checked, transitions, context.now()), context.now());
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
     * Rescues beyond {@link #RESCUES_PER_NODE} of one node within {@link #RESCUE_WINDOW} are held ({@link Outcome#HELD}):
     * the node stays where it is, its performance-only pods under the eco cap, until the window allows another. A
     * rescue counts once per eco episode (the node's {@code since}): one whose write failed and is tried again is the
     * same rescue. A rescue that changes no state (a half-written commit put right) is not limited, nor is the raise of a
     * node the plan wants in performance anyway.
     */
    private List<Transition> held(List<ManagedNode> nodes, List<Transition> transitions, Instant now) {
        List<Transition> out = new ArrayList<>(transitions);
        for (int i = 0; i < transitions.size(); i++) {
            Transition t = transitions.get(i);
            ManagedNode n = nodes.get(i);
            if (t.outcome() == Outcome.RESCUED && t.to() == PowerState.DrainingPerformance && t.changed()
                    && !rescues.admit(n.name(), n.since(), now)) {
                out.set(i, guard.hold(n, t.requested(), "rescue held: " + RESCUES_PER_NODE + " rescues of this node within "
                        + Durations.format(RESCUE_WINDOW) + " already; " + t.reason().replace(": back to the performance cap,"
                        + " draining", "") + " until the window allows another"));
            }
        }
        return out;
    }

    /**
     * When the transition budget has room for one more state change ({@code now} if it has already; null if never): a
     * move {@link Outcome#DEFERRED} for the budget is worth looking at again then, not before.
     */
    public Instant transitionRoomAt(Instant now) {
        return transitionBudget.roomAt(now, settings.maxTransitionsPerTick(), settings.reconcileInterval());
    }

    /**
     * At most {@code maxTransitionsPerTick} nodes change state per reconcile interval, ticks and rechecks together (the
     * blast radius of a bad plan, {@link RateBudget}): rescues always go and draw on the budget; then raises to
     * performance, then drains committing eco, then new drains, each in node order; the rest stay where they are
     * ({@link Outcome#DEFERRED}).
     */
    private List<Transition> limited(List<ManagedNode> nodes, List<Transition> transitions, Instant now) {
        int limit = settings.maxTransitionsPerTick();
        Duration period = settings.reconcileInterval();
        int budget = transitionBudget.available(now, limit, period);
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
            if (capInForce(nodes.get(i), t)) {
                continue; // the rest of a move whose cap landed already (a status write that failed): no new change
            }
            if (t.outcome() == Outcome.RESCUED || allowed < budget) {
                allowed++;
                continue;
            }
            out.set(i, guard.defer(nodes.get(i), t.requested(), "deferred: at most " + limit + " nodes change state per "
                    + Durations.format(period) + " (MAX_TRANSITIONS_PER_TICK over the reconcile interval); heading " + t.to()));
        }
        transitionBudget.spend(allowed, now, limit, period);
        return out;
    }

    /**
     * Whether the node's NodePowerProfile already asks for the other cap the transition moves it to: a move half-written (its
     * cap landed, its state did not), such as a forced commit whose status write failed. Finishing it changes nothing more on
     * the hardware (a commit's label went first; a raise's label still waits for the agent's confirmation), so it draws
     * nothing from the transition budget; deferring it would leave the eco cap in force without the state and the
     * {@code forcedPods} record that explain it.
     */
    private boolean capInForce(ManagedNode node, Transition t) {
        NodeCap cap = node.cap();
        Profile to = t.to().profile();
        return cap != null && to != node.state().profile() && cap.asks(to, settings.caps(to, node.labels()), node.power());
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

    /** Each node's rescues (when, and of which eco episode) within {@link #RESCUE_WINDOW}. */
    private static final class RescueLog {
        private final Map<String, Deque<Instant>> at = new HashMap<>();
        private final Map<String, Instant> episode = new HashMap<>();

        /** Whether the node may be rescued at {@code now} from its eco episode that began {@code since}; counts it if so. */
        synchronized boolean admit(String node, Instant since, Instant now) {
            if (since.equals(episode.get(node))) {
                return true; // the same rescue, tried again
            }
            Deque<Instant> times = at.computeIfAbsent(node, n -> new ArrayDeque<>());
            while (!times.isEmpty() && !times.peekFirst().isAfter(now.minus(RESCUE_WINDOW))) {
                times.pollFirst();
            }
            if (times.size() >= RESCUES_PER_NODE) {
                return false;
            }
            times.addLast(now);
            episode.put(node, since);
            return true;
        }
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
