package io.joulie.operator.runtime;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.joulie.api.v1alpha1.ControlResult;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.api.v1alpha1.JoulieStatus;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileStatus;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.operator.cluster.ApiWrites;
import io.joulie.operator.cluster.ClusterView;
import io.joulie.operator.cluster.EventReason;
import io.joulie.operator.cluster.EventSink;
import io.joulie.operator.cluster.InformerContextProvider;
import io.joulie.operator.cluster.KubernetesActuator;
import io.joulie.operator.cluster.PodSightings;
import io.joulie.operator.config.EffectivePolicy;
import io.joulie.operator.config.OperatorSettings;
import io.joulie.operator.config.TestConfig;
import io.joulie.operator.metrics.EnergyMetrics;
import io.joulie.operator.metrics.PlannerMetrics;
import io.joulie.operator.metrics.RuleMetrics;
import io.joulie.operator.telemetry.TelemetrySource;
import io.joulie.planner.AgentReport;
import io.joulie.planner.Planner;
import io.joulie.planner.PlannerSettings;
import io.joulie.planner.PodClass;
import io.joulie.planner.PodClassifier;
import io.joulie.planner.Telemetry;
import io.joulie.testkit.FakeClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.net.SocketTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Seeded, randomised fault injection of the operator's side of the performance contract, judged on the simulated
 * <b>hardware</b>: the real planner, guard, actuation ({@link KubernetesActuator} behind its fenced write port), plan
 * executor, contract ledger, recheck and watchdog ({@link PlannerLoop}, {@link ContractWatch}), the context provider
 * over a view that lags the API server, the policy reloader and the tick recorder, for two replicas with clocks of their
 * own, against an in-memory API server that holds the Lease, with simulated agents, kubelets, a scheduler, a DaemonSet
 * controller and a workload, at the production defaults (settle time, planning interval, confirmation and downgrade
 * timeouts).
 *
 * <p>One step is half a second of a {@link FakeClock} (the API server's clock; each replica reads it with a skew of its
 * own). Ticks and watchdog passes run on threads of their own ({@link Handover}): a tick's Prometheus read and any
 * write can take simulated time, during which the world goes on, the watches deliver and the watchdog runs. Injected:
 * 409, 429, 5xx and timeouts (the write lost, or applied anyway, after the client's timeout) on any write, slow writes,
 * a slow Node webhook, a slow Prometheus; watch gaps and stale caches; Pods of every shape the contract speaks of
 * (nodeSelector, In, NotIn, an empty affinity term, gated, DaemonSet, terminating with a grace period), bound by a
 * scheduler whose view of the labels lags, or past it with {@code spec.nodeName} (then the kubelet admits or rejects them
 * on its own lagging view of its Node); the label set by hand; NodePowerProfiles deleted by hand (their answer with
 * them, the agent often down); agent crashes (one in four a crash loop of minutes), agent reports lost after an apply, DVFS
 * nodes that unthrottle over several steps; the Lease moving on the server while the old leader believes for a while
 * that it still leads (in the middle of a tick's writes too); operator restarts (all memory lost); Prometheus outages
 * under a power budget.
 *
 * <p>Pods are judged with {@link NodeAffinityOracle}, not with the operator's classifier. After every step it checks:
 * <ol>
 * <li><b>hardware</b>: no running performance-only Pod runs on a node whose package is at the eco cap (what its agent
 *     last wrote) for longer than {@link #BOUND} in one episode, while the node's agent runs (escalation {@code force}'s
 *     pods and rescues held by a per-node rescue limit excepted);</li>
 * <li><b>closed loop</b>: no node with an agent is labelled {@code performance} by the operator while its hardware is
 *     not at the performance cap (eco cap, or a DVFS throttle left);</li>
 * <li><b>legal moves</b>: every state change the API server records is one the state machine allows at that moment, by
 *     the server's clock: no ActivePerformance → ActiveEco, a drain only when the writer's plan wants eco and never from a
 *     recheck, a commit only after the settle time with no running performance-only Pod the operator could have seen, a
 *     rescue only with a performance-only Pod on the node that runs or that its kubelet admits, a raise only when the
 *     writer's plan wants performance;</li>
 * <li><b>fencing, on the server</b>: no write without a precondition the API server checks (a resourceVersion, a
 *     JSON-patch {@code test} of the label) lands from a replica the server's Lease does not name (whatever the replica
 *     believes);</li>
 * <li><b>budget</b>: while Prometheus is out, every tick of a leader holds the power budget's count the
 *     {@code Joulie} status keeps, also right after a restart;</li>
 * </ol>
 * and at the end, <b>no flapping</b>: no node changed state more than twice per change of what the plan asked for it
 * plus twice per rescue. Used by {@code ContractFaultInjectionTest} (fixed seeds, in the test run) and as a longer run
 * from the command line (docs/reliability.md).
 */
final class ContractFaultInjection {
    /** The production defaults: settle time, planning interval, confirmation and downgrade timeouts. */
    static final PlannerSettings DEFAULTS = new OperatorSettings(new TestConfig()).planner();
    static final Duration STEP = Duration.ofMillis(500);
    static final Duration INTERVAL = DEFAULTS.reconcileInterval();
    static final Duration SETTLE = DEFAULTS.settleTime();
    static final Duration DOWNGRADE_TIMEOUT = DEFAULTS.downgradeTimeout();
    /** The most a view lags the API server while it watches (stale caches). */
    static final int MAX_LAG_STEPS = 2;
    static final Duration VIEW_LAG = STEP.multipliedBy(MAX_LAG_STEPS);
    /** The longest watch gap: the view is unsynced, then lists again. */
    static final Duration MAX_GAP = Duration.ofMillis(3_500);
    /** How old the kubelet's view of its Node's labels may be when it admits a Pod. */
    static final Duration KUBELET_LAG = Duration.ofSeconds(1);
    /** How old the scheduler's (and the DaemonSet controller's) view of the labels may be. */
    static final Duration SCHEDULER_LAG = Duration.ofMillis(1_200);
    /** The operator's write client's request timeout (Fabric8ApiWrites): a timed-out write takes this long. */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
    /** The longest a write that succeeds may take (a slow API server). */
    static final Duration SLOW_WRITE = Duration.ofSeconds(5);
    /** A label patch while a slow Node admission webhook is in place takes this (its timeout, failurePolicy Ignore). */
    static final Duration WEBHOOK = Duration.ofSeconds(10);
    /** The most writes of one node the API server fails in a row (the fault model's limit). */
    static final int MAX_FAILED_IN_A_ROW = 3;
    /** How long an old leader may go on believing it leads after the server gave the Lease away (the renew deadline). */
    static final Duration LEASE_LAG = new OperatorSettings(new TestConfig()).lease().renewDeadline();
    /** Each replica's clock is off the server's by up to this much, either way. */
    static final Duration MAX_SKEW = Duration.ofSeconds(2);
    /**
     * The bound on the time a running performance-only Pod spends on a node whose package is at the eco cap, per episode,
     * while the node's agent runs: the view's lag and its longest watch gap (the recheck is refused while unsynced and
     * retried {@link ContractWatch#RETRY} later), a step for the watchdog to run, {@link #MAX_FAILED_IN_A_ROW} failed
     * rescue writes (each at most the request timeout, then retried after the backoff's base and a step), the write
     * that lands (at most a slow write), and a step for the agent to apply it. Nothing in it depends on what a tick is
     * doing: a tick takes up to minutes here.
     */
    static final Duration BOUND = VIEW_LAG.plus(MAX_GAP).plus(ContractWatch.RETRY).plus(STEP)
            .plus(REQUEST_TIMEOUT.plus(PlanExecutor.BACKOFF_BASE).plus(STEP).multipliedBy(MAX_FAILED_IN_A_ROW))
            .plus(SLOW_WRITE).plus(STEP);
    /**
     * Event reasons by which the operator says a rescue was held by its per-node rescue limit (the blast radius over
     * time, {@link EventReason#RescueHeld}): a Pod on such a node is excepted from the hardware invariant until the node
     * is rescued or its package leaves the eco cap.
     */
    static final Set<String> RESCUE_HELD_REASONS = Set.of(EventReason.RescueHeld.name());
    /** A pod no node admits is deleted after this long (a Job's deadline, a user giving up). */
    static final Duration PENDING_FOR = Duration.ofMinutes(5);
    static final int NODES = 12;
    static final double BUDGET_WATTS = 2_500;
    static final double PERF_DRAW = 300;
    static final double ECO_DRAW = 100;

    /** What was injected, counted per kind. */
    enum Fault {
        CONFLICT, TOO_MANY_REQUESTS, SERVER_ERROR, TIMEOUT_LOST, TIMEOUT_APPLIED, SLOW_WRITE, SLOW_WEBHOOK, SLOW_PROMETHEUS,
        WATCH_GAP, STALE_DELIVERY, POD_BOUND_DIRECTLY, POD_SCHEDULED, POD_ON_DRAINING_ALLOWED, POD_NOT_IN, POD_EMPTY_TERM,
        POD_GATED, POD_DAEMONSET, POD_TERMINATING, POD_REJECTED, LABEL_BY_HAND, PROFILE_DELETED, AGENT_CRASH, AGENT_CRASH_LOOP, REPORT_LOST,
        LEADER_LOST_MID_TICK, LEADER_CHANGE, STALE_LEADER_WRITE, OPERATOR_RESTART, PROMETHEUS_OUTAGE, EVICTION_REFUSED,
        POLICY_CHANGE
    }

    /** The shapes of the Pods the workload creates (DaemonSet pods come from their controller). */
    enum Shape {
        SELECTOR, IN, IN_DRAINING, NOT_IN_ECO, EMPTY_TERM, EITHER_PROFILE, GATED
    }

    /**
     * What a run did and found.
     *
     * @param violations       invariant violations, in words (empty when the run is clean)
     * @param rescues          state changes ActiveEco → DrainingPerformance (a performance-only pod found on an eco node)
     * @param underEco         episodes of a running performance-only pod on a node at the hardware eco cap
     * @param longestUnderEco  the longest such episode
     * @param stuck            watchdog passes or ticks found waiting for a lock another thread held through a slow call
     */
    record Figures(long seed, long steps, long ticks, long rechecks, long writes, long stateChanges, long decisions,
                   long rescues, long underEco, Duration longestUnderEco, long stuck, Map<Fault, Integer> faults, List<String> violations) {
    }

    enum Escalation {
        HOLD, FORCE, EVICT
    }

    private final long seed;
    private final Random rnd;
    private final Escalation escalation;
    private final boolean budget;
    private final FakeClock clock = new FakeClock();
    private final Handover handover = new Handover();
    private final Server server = new Server();
    private final Replica[] replicas = new Replica[2];
    private final Map<String, Agent> agents = new TreeMap<>();
    private final Map<Fault, Integer> faults = new ConcurrentHashMap<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final List<String> nodeNames = new ArrayList<>();
    private Instant outageUntil = Instant.MIN;
    private Instant slowPrometheusUntil = Instant.MIN;
    private Instant slowWebhookUntil = Instant.MIN;
    private long ticks;
    private long unplanned;
    private long rechecks;
    private long writes;
    private long stateChanges;
    private long podCount;
    private double staticFrac = 0.5;
    /** How often what a leader's plan asked of each node changed. */
    private final Map<String, Integer> decisions = new ConcurrentHashMap<>();
    private final Map<String, Integer> changes = new ConcurrentHashMap<>();
    private final Map<String, Integer> rescuesByNode = new ConcurrentHashMap<>();
    /** When each (pod, node) went onto a hardware eco cap, while it is. */
    private final Map<String, Instant> underEco = new HashMap<>();
    private final Set<String> reported = new HashSet<>();
    /** Nodes labelled performance while their hardware is not: reported once per episode. */
    private final Set<String> openLoop = new HashSet<>();
    /** Nodes whose rescue the operator said it holds (per-node rescue limit), and since when. */
    private final Map<String, Instant> rescueHeld = new ConcurrentHashMap<>();
    /** Failed writes in a row, per node (the fault model fails at most {@link #MAX_FAILED_IN_A_ROW}). */
    private final Map<String, Integer> failedInARow = new ConcurrentHashMap<>();
    private long episodes;
    private Duration longest = Duration.ZERO;

    ContractFaultInjection(long seed) {
        this.seed = seed;
        this.rnd = new Random(seed);
        this.escalation = Escalation.values()[(int) Math.floorMod(seed, 3)];
        this.budget = seed % 2 == 0;
        for (int i = 1; i <= NODES; i++) {
            String name = "n%02d".formatted(i);
            nodeNames.add(name);
            server.put(Kind.NODE, name, new NodeBuilder().withNewMetadata().withName(name).withUid("uid-" + name)
                    .withLabels(new HashMap<>(Map.of("joulie.io/managed", "true", "kubernetes.io/hostname", name))).endMetadata()
                    .withNewSpec().endSpec().build());
            // the last two nodes run no agent (nothing reports for them); two more are DVFS-only (they unthrottle slowly)
            if (i <= NODES - 2) {
                agents.put(name, new Agent(name, i > NODES - 4));
            }
        }
        server.joulie = joulie(null);
        server.log(Kind.JOULIE, Joulie.ACTIVE_NAME, server.joulie);
        replicas[0] = new Replica(0);
        replicas[1] = new Replica(1);
        replicas[0].acquired();
    }

    /** The kinds of fault this run injects: evictions only under escalation evict, outages only with a power budget. */
    Set<Fault> injectable() {
        Set<Fault> kinds = java.util.EnumSet.allOf(Fault.class);
        if (escalation != Escalation.EVICT) {
            kinds.remove(Fault.EVICTION_REFUSED);
        }
        if (!budget) {
            kinds.remove(Fault.PROMETHEUS_OUTAGE);
        }
        return kinds;
    }

    Figures run(int tickCount) {
        long steps = 0;
        try {
            while (ticks < tickCount) {
                step();
                steps++;
            }
        } finally {
            for (Replica r : replicas) {
                r.alive = false;
            }
            handover.kill(o -> true);
        }
        checkFlapping();
        return new Figures(seed, steps, ticks, rechecks, writes, stateChanges,
                decisions.values().stream().mapToLong(Integer::longValue).sum(),
                rescuesByNode.values().stream().mapToLong(Integer::longValue).sum(), episodes, longest, handover.stuckSeen(),
                new EnumMap<>(faults.isEmpty() ? Map.of() : faults), List.copyOf(violations));
    }

    private void count(Fault f) {
        faults.merge(f, 1, Integer::sum);
    }

    private Instant now() {
        return clock.instant();
    }

    // ---- one step ----------------------------------------------------------------------------------------------------

    private void step() {
        clock.advance(STEP);
        world();
        agents.values().forEach(Agent::step);
        for (Replica r : replicas) {
            r.view.deliver();
        }
        server.trim();
        // the operator's threads: slow calls whose time has come go on, then each replica's watchdog and scheduled tick
        handover.release(now());
        collect();
        for (Replica r : replicas) {
            if ((r.watchdog == null || r.watchdog.done()) && r.watchdogHasWork()) {
                r.reportedSinceRun = false;
                r.watchdog = handover.start("watch-" + r.id, r, r.watch::runDue);
                collect();
            }
        }
        for (Replica r : replicas) {
            boolean scheduled = !now().isBefore(r.nextTick);
            if (!(r.mustTick && r.leading()) && !scheduled) {
                continue;
            }
            if (scheduled) {
                r.nextTick = now().plus(INTERVAL);
            }
            if (r.tick == null || r.tick.done()) { // a tick still running: this one is skipped, as the scheduler does
                r.tick = handover.start("tick-" + r.id, r, r.loop::tick);
                collect();
            }
        }
        check();
    }

    /** What the operator's threads finished: ticks counted, the leader's status published, rechecks counted. */
    private void collect() {
        for (Handover.Activity a : handover.finished()) {
            Replica r = (Replica) a.owner;
            Object result = a.result();
            if (!r.alive) {
                continue;
            }
            if (a.name.startsWith("tick")) {
                if (Boolean.TRUE.equals(result)) {
                    ticks++;
                    r.mustTick = false;
                    publishStatus(r);
                } else {
                    unplanned++;
                }
            } else if (result instanceof Set<?> nodes && !nodes.isEmpty()) {
                rechecks++;
            }
        }
    }

    /** What the Joulie reconciler does with the leader's report: the status, with the budget count it holds. */
    private void publishStatus(Replica r) {
        r.status.latest().ifPresent(report -> {
            JoulieStatus before = server.joulie.getStatus();
            JoulieStatus after = new JoulieStatus(null, null, null, null, report.nodes(), null, report.budgetHold());
            if (before == null || !Objects.equals(before.budgetHold(), after.budgetHold())) {
                Joulie j = joulie(server.joulie.getSpec().policy());
                j.setStatus(after);
                server.joulie = j;
                server.log(Kind.JOULIE, Joulie.ACTIVE_NAME, j);
                // a replica that still believes it leads writes the status too (it is not fenced); the holder's own
                // reconciler writes its count back on the change (decision 175)
                server.statusByStaleLeader = server.holder != r.id;
            } else if (server.holder == r.id) {
                server.statusByStaleLeader = false; // the holder's count is the one the status shows
            }
        });
    }

    private Joulie joulie(JoulieSpec.Policy policy) {
        Joulie j = new Joulie();
        j.setMetadata(new ObjectMetaBuilder().withName(Joulie.ACTIVE_NAME).withGeneration(1L).build());
        j.setSpec(new JoulieSpec(null, policy == null ? policy(staticFrac) : policy, null));
        return j;
    }

    private JoulieSpec.Policy policy(double frac) {
        return budget ? JoulieSpec.Policy.of("staticHpFrac", frac, "powerBudget", Map.of("watts", BUDGET_WATTS))
                : JoulieSpec.Policy.of("staticHpFrac", frac);
    }

    // ---- the world: workload, scheduler, kubelets, DaemonSet controller, policy, outages, leadership, restarts --------

    private void world() {
        // a new decision now and then
        if (rnd.nextInt(2_000) == 0) {
            staticFrac = List.of(0.25, 0.5, 0.75, 1.0).get(rnd.nextInt(4));
            Joulie j = joulie(policy(staticFrac));
            j.setStatus(server.joulie.getStatus());
            server.joulie = j;
            server.log(Kind.JOULIE, Joulie.ACTIVE_NAME, j);
            count(Fault.POLICY_CHANGE);
        }
        // pods of every shape through the scheduler, and some bound past it (the kubelet admits or rejects them)
        if (rnd.nextInt(8) == 0) {
            createPod(Shape.values()[rnd.nextInt(Shape.values().length)], null);
        }
        if (rnd.nextInt(60) == 0) {
            Shape shape = List.of(Shape.SELECTOR, Shape.NOT_IN_ECO, Shape.EMPTY_TERM).get(rnd.nextInt(3));
            createPod(shape, nodeNames.get(rnd.nextInt(NODES)));
            count(Fault.POD_BOUND_DIRECTLY);
        }
        // an admin sets an eco node's power-profile label to performance by hand (the operator puts it back; pods may
        // land meanwhile and run on the eco package until it is rescued)
        if (rnd.nextInt(400) == 0) {
            List<String> eco = nodeNames.stream().filter(n -> "eco".equals(server.label(n))).toList();
            String node = eco.isEmpty() ? nodeNames.get(rnd.nextInt(NODES)) : eco.get(rnd.nextInt(eco.size()));
            trace(node, "label performance by hand");
            server.setLabel(node, "performance");
            server.labelledByHand.add(node);
            count(Fault.LABEL_BY_HAND);
        }
        // someone deletes a NodePowerProfile while troubleshooting, preferably where the agent is down (crash loop): the
        // operator recreates it with no answer in it, and the node's hardware is still at whatever its agent last wrote
        if (rnd.nextInt(1_500) == 0) {
            List<String> down = agents.values().stream().filter(Agent::down).map(a -> a.node).toList();
            String node = down.isEmpty() ? nodeNames.get(rnd.nextInt(NODES)) : down.get(rnd.nextInt(down.size()));
            if (server.npps.containsKey(JoulieApi.nodePowerProfileName(node))) {
                trace(node, "NodePowerProfile deleted by hand");
                server.remove(Kind.NPP, JoulieApi.nodePowerProfileName(node));
                count(Fault.PROFILE_DELETED);
            }
        }
        daemonSet();
        schedule();
        kubelets();
        lifecycle();
        // slow periods: Prometheus answering slowly (the tick's telemetry read), a slow admission webhook on Node updates
        if (now().isAfter(slowPrometheusUntil) && rnd.nextInt(1_500) == 0) {
            slowPrometheusUntil = now().plusSeconds(60 + rnd.nextInt(240));
            count(Fault.SLOW_PROMETHEUS);
        }
        if (now().isAfter(slowWebhookUntil) && rnd.nextInt(1_500) == 0) {
            slowWebhookUntil = now().plusSeconds(30 + rnd.nextInt(120));
            count(Fault.SLOW_WEBHOOK);
        }
        if (budget && now().isAfter(outageUntil) && rnd.nextInt(300) == 0) {
            outageUntil = now().plusSeconds(20 + rnd.nextInt(100));
            count(Fault.PROMETHEUS_OUTAGE);
        }
        // watch gaps: a view stops watching for a few seconds, then lists again
        for (Replica r : replicas) {
            if (!r.view.gap() && rnd.nextInt(250) == 0) {
                r.view.gapUntil = now().plusMillis(500 + rnd.nextInt((int) MAX_GAP.toMillis() - 500 + 1));
                count(Fault.WATCH_GAP);
            }
        }
        // the Lease moves on the server (not renewed in time); a replica restarts (a crash, an upgrade)
        if (rnd.nextInt(500) == 0) {
            changeLeader(Fault.LEADER_CHANGE);
        }
        if (rnd.nextInt(700) == 0) {
            restart(rnd.nextInt(2));
        }
    }

    /**
     * The Lease goes to the other replica on the server. The new holder knows at once (it acquired it); the old one
     * goes on believing it leads for up to {@link #LEASE_LAG} (its elector has not noticed yet). Not while a replica
     * still believes in a Lease it lost: the harness models one such window at a time.
     */
    private synchronized void changeLeader(Fault why) {
        int from = server.holder;
        Replica old = replicas[from];
        Replica next = replicas[1 - from];
        if (old.believesUntil.isAfter(now()) || next.believesUntil.isAfter(now())) {
            return;
        }
        old.believesUntil = now().plusMillis(rnd.nextInt((int) LEASE_LAG.toMillis() + 1));
        traces.keySet().forEach(n -> trace(n, "Lease to " + next.id + " (" + why + "); " + old.id + " believes until "
                + old.believesUntil));
        next.acquired();
        count(why);
    }

    /** A replica's process dies and a new one starts with no memory; its threads' requests never land. */
    private void restart(int i) {
        Replica old = replicas[i];
        old.alive = false;
        handover.kill(o -> o == old);
        collect();
        replicas[i] = new Replica(i);
        traces.keySet().forEach(n -> trace(n, "replica " + i + " restarted"));
        if (server.holder == i) {
            replicas[i].acquired(); // it comes back within the Lease's duration and takes it again
        }
        count(Fault.OPERATOR_RESTART);
    }

    private static NodeSelectorTerm term(String operator, String... values) {
        return new NodeSelectorTermBuilder().withMatchExpressions(new NodeSelectorRequirementBuilder()
                .withKey(JoulieApi.POWER_PROFILE_LABEL).withOperator(operator).withValues(values).build()).build();
    }

    private Pod createPod(Shape shape, String node) {
        String name = "p" + (++podCount);
        PodBuilder b = new PodBuilder().withNewMetadata().withNamespace("hpc").withName(name).endMetadata()
                .withNewSpec().withNodeName(node).withTerminationGracePeriodSeconds(30L).endSpec()
                .withNewStatus().withPhase("Pending").endStatus();
        List<NodeSelectorTerm> terms = switch (shape) {
            case SELECTOR, GATED -> List.of();
            case IN -> List.of(term("In", "performance"));
            case IN_DRAINING -> List.of(term("In", "performance", JoulieApi.DRAINING_PERFORMANCE));
            case NOT_IN_ECO -> List.of(term("NotIn", "eco"));
            case EMPTY_TERM -> List.of(term("In", "performance"), new NodeSelectorTerm()); // the empty term matches nothing
            case EITHER_PROFILE -> List.of(term("In", "performance"), term("In", "eco"));
        };
        if (terms.isEmpty()) {
            b.editSpec().withNodeSelector(Map.of(JoulieApi.POWER_PROFILE_LABEL, "performance")).endSpec();
        } else {
            b.editSpec().withNewAffinity().withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
                    .withNodeSelectorTerms(terms).endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity()
                    .endAffinity().endSpec();
        }
        if (node == null) {
            server.podEnds.put("hpc/" + name, now().plus(PENDING_FOR)); // unscheduled that long, it is deleted
        }
        if (shape == Shape.GATED) {
            b.editSpec().addNewSchedulingGate("example.com/quota").endSpec();
            server.gateEnds.put("hpc/" + name, now().plusSeconds(10 + rnd.nextInt(110)));
            count(Fault.POD_GATED);
        }
        switch (shape) {
            case IN_DRAINING -> count(Fault.POD_ON_DRAINING_ALLOWED);
            case NOT_IN_ECO -> count(Fault.POD_NOT_IN);
            case EMPTY_TERM -> count(Fault.POD_EMPTY_TERM);
            default -> { }
        }
        Pod pod = b.build();
        server.put(Kind.POD, key(pod), pod);
        if (node != null) {
            bound(pod, node);
        }
        return pod;
    }

    private void bound(Pod pod, String node) {
        trace(node, "bound " + key(pod));
        server.boundAt.put(key(pod), now());
        // most pods run for up to two minutes; one in ten for 30 to 60 minutes (past the downgrade timeout)
        long seconds = rnd.nextInt(10) == 0 ? 1_800 + rnd.nextInt(1_800) : 5 + rnd.nextInt(115);
        server.podEnds.put(key(pod), now().plusSeconds(seconds));
    }

    /** The node's labels as a component whose cache lags by up to {@code lag} saw them. */
    private Map<String, String> labelsSeen(String node, Duration lag) {
        Map<String, String> labels = new HashMap<>(server.nodes.get(node).getMetadata().getLabels());
        String profile = server.labelAt(node, now().minusMillis(rnd.nextInt((int) lag.toMillis() + 1)));
        if (profile == null) {
            labels.remove(JoulieApi.POWER_PROFILE_LABEL);
        } else {
            labels.put(JoulieApi.POWER_PROFILE_LABEL, profile);
        }
        return labels;
    }

    /** Binds pending, ungated pods to nodes whose labels admitted them a moment ago (the scheduler's cache lags). */
    private void schedule() {
        Map<String, Map<String, String>> seen = new HashMap<>();
        for (Pod p : List.copyOf(server.pods.values())) {
            if (p.getSpec().getNodeName() != null || gated(p) || !"Pending".equals(p.getStatus().getPhase())) {
                continue;
            }
            if (seen.isEmpty()) {
                nodeNames.forEach(n -> seen.put(n, labelsSeen(n, SCHEDULER_LAG)));
            }
            List<String> fit = nodeNames.stream().filter(n -> NodeAffinityOracle.admits(p, n, seen.get(n))).toList();
            if (fit.isEmpty()) {
                continue;
            }
            String node = fit.get(rnd.nextInt(fit.size()));
            Pod bound = new PodBuilder(p).editSpec().withNodeName(node).endSpec().editStatus()
                    .addNewCondition().withType("PodScheduled").withStatus("True").endCondition().endStatus().build();
            server.put(Kind.POD, key(bound), bound);
            bound(bound, node);
            count(Fault.POD_SCHEDULED);
        }
    }

    private static boolean gated(Pod p) {
        return p.getSpec().getSchedulingGates() != null && !p.getSpec().getSchedulingGates().isEmpty();
    }

    /**
     * Each node's kubelet admits the pods bound to it on its own (lagging) view of its Node's labels: a pod whose
     * required affinity the node does not satisfy goes Failed and never runs.
     */
    private void kubelets() {
        for (Pod p : List.copyOf(server.pods.values())) {
            String node = p.getSpec().getNodeName();
            if (node == null || !"Pending".equals(p.getStatus().getPhase()) || !server.boundAt.get(key(p)).isBefore(now())) {
                continue;
            }
            boolean admitted = NodeAffinityOracle.admits(p, node, labelsSeen(node, KUBELET_LAG));
            PodBuilder b = new PodBuilder(p).editStatus().withPhase(admitted ? "Running" : "Failed")
                    .withReason(admitted ? null : "NodeAffinity").endStatus();
            if (admitted && !PodClassifier.scheduled(p)) {
                b.editStatus().addNewCondition().withType("PodScheduled").withStatus("True").endCondition().endStatus();
            }
            Pod next = b.build();
            server.put(Kind.POD, key(p), next);
            trace(node, (admitted ? "running " : "rejected by the kubelet ") + key(p));
            if (!admitted) {
                server.podEnds.put(key(p), now().plusSeconds(10));
                count(Fault.POD_REJECTED);
            }
        }
    }

    /**
     * One DaemonSet whose pods select {@code performance} nodes: its controller (on a lagging view) creates a pod on
     * each node whose label matches and deletes it (with a 30 s grace period) where it no longer does.
     */
    private void daemonSet() {
        if (rnd.nextInt(4) != 0) {
            return; // the controller resyncs every other second or so
        }
        for (String node : nodeNames) {
            String key = "kube-system/ds-" + node;
            Pod existing = server.pods.get(key);
            boolean wanted = "performance".equals(labelsSeen(node, SCHEDULER_LAG).get(JoulieApi.POWER_PROFILE_LABEL));
            if (wanted && existing == null) {
                Pod pod = new PodBuilder().withNewMetadata().withNamespace("kube-system").withName("ds-" + node)
                        .addNewOwnerReference().withApiVersion("apps/v1").withKind("DaemonSet").withName("ds").withUid("uid-ds")
                        .withController(true).endOwnerReference().endMetadata()
                        .withNewSpec().withNodeName(node).withTerminationGracePeriodSeconds(30L)
                        .withNodeSelector(Map.of(JoulieApi.POWER_PROFILE_LABEL, "performance")).endSpec()
                        .withNewStatus().withPhase("Pending").endStatus().build();
                server.put(Kind.POD, key, pod);
                server.boundAt.put(key, now());
                server.podEnds.put(key, Instant.MAX);
                count(Fault.POD_DAEMONSET);
            } else if (!wanted && existing != null && existing.getMetadata().getDeletionTimestamp() == null
                    && !"Failed".equals(existing.getStatus().getPhase())) {
                terminate(existing, 30);
            }
        }
    }

    /** A graceful delete: the pod keeps running through its grace period, then it is gone. */
    private void terminate(Pod p, long graceSeconds) {
        Pod deleting = new PodBuilder(p).editMetadata().withDeletionTimestamp(now().toString())
                .withDeletionGracePeriodSeconds(graceSeconds).endMetadata().build();
        server.put(Kind.POD, key(p), deleting);
        server.podEnds.put(key(p), now().plusSeconds(graceSeconds));
        trace(p.getSpec().getNodeName(), "terminating " + key(p) + " for " + graceSeconds + " s");
        count(Fault.POD_TERMINATING);
    }

    /** Pods end, are deleted with a grace period, leave; gates are lifted. */
    private void lifecycle() {
        if (rnd.nextInt(200) == 0) {
            List<Pod> running = server.pods.values().stream().filter(p -> NodeAffinityOracle.running(p)
                    && p.getMetadata().getDeletionTimestamp() == null && !p.getMetadata().getNamespace().equals("kube-system")).toList();
            if (!running.isEmpty()) {
                terminate(running.get(rnd.nextInt(running.size())), 10 + rnd.nextInt(290));
            }
        }
        for (Pod p : List.copyOf(server.pods.values())) {
            String key = key(p);
            String phase = p.getStatus().getPhase();
            Instant end = server.podEnds.get(key);
            Instant gate = server.gateEnds.get(key);
            if (gate != null && !now().isBefore(gate)) {
                server.gateEnds.remove(key);
                server.put(Kind.POD, key, new PodBuilder(p).editSpec().withSchedulingGates(List.of()).endSpec().build());
            } else if (end == null) {
                continue;
            } else if (p.getSpec().getNodeName() == null) {
                if (!now().isBefore(end)) {
                    server.remove(Kind.POD, key); // given up on while still pending
                }
            } else if (p.getMetadata().getDeletionTimestamp() != null || "Failed".equals(phase) || "Succeeded".equals(phase)) {
                if (!now().isBefore(end)) {
                    server.remove(Kind.POD, key);
                }
            } else if ("Running".equals(phase) && !now().isBefore(end)) {
                server.put(Kind.POD, key, new PodBuilder(p).editStatus().withPhase("Succeeded").endStatus().build());
                server.podEnds.put(key, now().plusSeconds(10));
            }
        }
    }

    // ---- invariants ---------------------------------------------------------------------------------------------------

    private void violation(String what) {
        if (violations.size() < 50) {
            violations.add("seed " + seed + ", " + now() + ": " + what);
        }
    }

    /** The last things that happened to each node (named in a violation's trace). */
    private final Map<String, ArrayDeque<String>> traces = new ConcurrentHashMap<>();

    private void trace(String node, String what) {
        if (node == null) {
            return;
        }
        var t = traces.computeIfAbsent(node, n -> new ArrayDeque<>());
        synchronized (t) {
            t.addLast(now() + " " + what);
            if (t.size() > 60) {
                t.removeFirst();
            }
        }
    }

    private String traceOf(String node) {
        if (System.getProperty("faults.trace") == null) {
            return "";
        }
        var t = traces.getOrDefault(node, new ArrayDeque<>());
        synchronized (t) {
            return "\n    " + String.join("\n    ", t);
        }
    }

    /** Performance-only by the harness's own reading of the pod's constraints on this node. */
    private boolean performanceOnly(Pod p, String node) {
        Node n = server.nodes.get(node);
        return NodeAffinityOracle.performanceOnly(p, node, n == null ? Map.of() : n.getMetadata().getLabels());
    }

    private void check() {
        Set<String> still = new HashSet<>();
        for (Pod p : server.pods.values()) {
            String node = p.getSpec().getNodeName();
            if (node == null || !NodeAffinityOracle.running(p) || !performanceOnly(p, node)) {
                continue;
            }
            Agent a = agents.get(node);
            if (a == null || a.hwProfile != Profile.ECO) {
                rescueHeld.remove(node); // a hold ends with the episode
                continue; // no agent: no hardware modelled; or the package is not at the eco cap
            }
            NodePowerProfile npp = server.npps.get(JoulieApi.nodePowerProfileName(node));
            boolean recorded = npp != null && npp.getStatus() != null && npp.getStatus().forcedPods() != null
                    && npp.getStatus().forcedPods().contains(key(p));
            boolean forced = recorded || forcedAtEco(node, p);
            if (forced || rescueHeld.containsKey(node)) {
                continue; // the contract's documented exceptions
            }
            String k = key(p) + "@" + node;
            still.add(k);
            if (a.down()) {
                underEco.put(k, now()); // no agent runs to lift the cap: the episode starts when it is back
                continue;
            }
            Instant since = underEco.computeIfAbsent(k, x -> {
                episodes++;
                trace(node, "hardware eco under " + key(p));
                return now();
            });
            Duration d = Duration.between(since, now());
            if (d.compareTo(longest) > 0) {
                longest = d;
            }
            if (d.compareTo(BOUND) > 0 && reported.add(k)) {
                violation("hardware: performance-only pod " + key(p) + " (" + shape(p) + ") runs on node " + node
                        + " at the eco cap for " + d.toMillis() + " ms (bound " + BOUND.toMillis() + " ms)" + traceOf(node));
            }
        }
        underEco.keySet().retainAll(still);
        for (String node : nodeNames) {
            Agent a = agents.get(node);
            if ("performance".equals(server.label(node)) && a != null && !a.hardwarePerformance()
                    && !server.labelledByHand.contains(node)) {
                if (openLoop.add(node)) { // once per episode
                    violation("closed loop: node " + node + " labelled performance at the hardware cap " + a.hwProfile + " (throttle "
                            + a.throttle + " %, agent " + (a.down() ? "down" : "up") + ")" + traceOf(node));
                }
            } else {
                openLoop.remove(node);
            }
        }
    }

    /**
     * Whether escalation force left this pod, which {@code status.forcedPods} does not list, under the node's eco cap (as
     * the eco spec landed); once the bound has passed since then, the operator must have recorded it there (the
     * contract's exception is visible), and the run reports that it has not.
     */
    private boolean forcedAtEco(String node, Pod p) {
        Forced f = server.forcedAtEco.get(node);
        if (f == null || !f.pods().contains(key(p))) {
            return false;
        }
        if (Duration.between(f.at(), now()).compareTo(BOUND) > 0 && reported.add("forced " + key(p) + "@" + node)) {
            violation("record: " + node + " forced to eco at " + f.at() + " under " + key(p) + ", not in status.forcedPods "
                    + Duration.between(f.at(), now()).toMillis() + " ms later" + traceOf(node));
        }
        return true;
    }

    /** The performance-only pods escalation force left under a node's eco cap, and when the eco spec landed. */
    record Forced(Instant at, Set<String> pods) {
    }

    /** A pod's shape in words (violations name it). */
    private static String shape(Pod p) {
        StringBuilder s = new StringBuilder();
        if (p.getMetadata().getOwnerReferences() != null && !p.getMetadata().getOwnerReferences().isEmpty()) {
            s.append("DaemonSet, ");
        }
        if (p.getMetadata().getDeletionTimestamp() != null) {
            s.append("terminating, ");
        }
        if (p.getSpec().getNodeSelector() != null) {
            s.append("nodeSelector ").append(p.getSpec().getNodeSelector());
        }
        if (p.getSpec().getAffinity() != null) {
            s.append("terms ");
            for (NodeSelectorTerm t : p.getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
                    .getNodeSelectorTerms()) {
                s.append(t.getMatchExpressions() == null || t.getMatchExpressions().isEmpty() ? "{}"
                        : t.getMatchExpressions().stream().map(r -> r.getOperator() + r.getValues()).toList());
            }
        }
        return s.toString();
    }

    /** A state change the API server records: is it one the state machine allows now, for the replica that wrote it? */
    private void stateChanged(Replica by, String node, PowerState from, PowerState to, NodePowerProfile before,
                              Instant decided) {
        stateChanges++;
        changes.merge(node, 1, Integer::sum);
        Profile wanted = by.plan().get(node);
        boolean recheck = handover.current() != null && handover.current().name.startsWith("watch");
        switch (from) {
            case ActivePerformance -> {
                if (to == PowerState.ActiveEco) {
                    violation("moves: " + node + " ActivePerformance -> ActiveEco without draining");
                } else if (wanted != Profile.ECO) {
                    violation("moves: " + node + " drained by replica " + by.id + " while its plan wants " + wanted);
                } else if (recheck) {
                    violation("moves: " + node + " drained by a recheck (new drains wait for a tick)" + traceOf(node));
                }
                server.drainStarted.put(node, now());
                server.drainStartedBy.put(node, by.id + " (clock " + by.skew.toMillis() + " ms off)");
            }
            case DrainingPerformance -> {
                if (to == PowerState.ActivePerformance) {
                    if (wanted != Profile.PERFORMANCE) {
                        violation("moves: " + node + " raised by replica " + by.id + " while its plan wants " + wanted);
                    }
                } else {
                    commit(by, node, before, decided);
                }
            }
            case ActiveEco -> {
                if (to == PowerState.ActivePerformance) {
                    if (wanted != Profile.PERFORMANCE) {
                        violation("moves: " + node + " raised by replica " + by.id + " while its plan wants " + wanted);
                    }
                } else {
                    rescue(node, decided);
                    server.drainStarted.put(node, now());
                    server.drainStartedBy.put(node, by.id + " (clock " + by.skew.toMillis() + " ms off)");
                }
            }
        }
    }

    /**
     * ActiveEco -> DrainingPerformance: a performance-only pod is on the node and runs, or its kubelet may admit it (the
     * node's label admitted it within the lags, also if a kubelet with an older view has just rejected it), or one left a
     * moment ago. A pod the node's labels did not admit within the lags (the kubelet certainly rejects it) triggers none.
     */
    private void rescue(String node, Instant decided) {
        // judged as of when it was decided (its status.since, on the writer's clock, up to MAX_SKEW off): the write may
        // land seconds later (a slow write, a retry)
        Duration lags = VIEW_LAG.plus(KUBELET_LAG).plus(STEP);
        Instant at = decided.minus(MAX_SKEW).isBefore(now()) ? decided.minus(MAX_SKEW) : now();
        Instant recent = at.minus(lags);
        boolean pod = server.lastPerformanceLeft.getOrDefault(node, Instant.MIN).isAfter(recent);
        for (Pod p : server.pods.values()) {
            if (pod || !node.equals(p.getSpec().getNodeName()) || !performanceOnly(p, node)) {
                continue;
            }
            String phase = p.getStatus().getPhase();
            // pending, or rejected a moment ago by a kubelet whose view lagged the operator's: the node's labels admitted
            // it within the lags, so the operator could not tell it from one that will run
            boolean recentlyBound = server.boundAt.getOrDefault(key(p), Instant.MIN).isAfter(recent);
            pod = "Running".equals(phase) || ("Pending".equals(phase) || "Failed".equals(phase) && recentlyBound)
                    && server.admittedSince(p, node, recent);
        }
        rescueHeld.remove(node);
        if (!pod) {
            violation("moves: " + node + " ActiveEco -> DrainingPerformance without a performance-only pod that runs there "
                    + "or that its kubelet admits; its pods: " + server.pods.values().stream()
                    .filter(p -> node.equals(p.getSpec().getNodeName()))
                    .map(p -> key(p) + " " + p.getStatus().getPhase() + " (" + shape(p) + ")").toList() + traceOf(node));
        }
        rescuesByNode.merge(node, 1, Integer::sum);
    }

    /** DrainingPerformance -> ActiveEco: after the settle time, with no performance-only pod the operator could have seen. */
    private void commit(Replica by, String node, NodePowerProfile before, Instant decided) {
        Instant drainSince = server.drainStarted.getOrDefault(node, Instant.parse(before.getStatus().since()));
        // the label goes first on the way down: the drain began for the scheduler when it stopped saying performance
        Instant labelled = server.drainLabelled.get(node);
        if (labelled != null && labelled.isBefore(drainSince) && labelled.isAfter(drainSince.minus(INTERVAL))) {
            drainSince = labelled;
        }
        boolean forced = escalation == Escalation.FORCE && !now().isBefore(drainSince.plus(DOWNGRADE_TIMEOUT));
        if (forced) {
            return;
        }
        Instant quiet = later(drainSince, server.lastPerformanceLeft.get(node));
        if (now().isBefore(quiet.plus(SETTLE))) {
            boolean podLeft = quiet.equals(server.lastPerformanceLeft.get(node));
            violation("moves: " + node + " committed eco by replica " + by.id + " (clock " + by.skew.toMillis() + " ms off) "
                    + Duration.between(quiet, now()).toMillis() + " ms (server clock) after "
                    + (podLeft ? "its last running performance-only pod left" : "its drain started (by replica "
                    + server.drainStartedBy.get(node) + ")") + ", before the settle time" + traceOf(node));
        }
        // judged as of when it was decided (its status.since, on the writer's clock, up to MAX_SKEW off): a slow write
        // lands seconds later, and a pod that admits a draining node may be bound meanwhile (the race decision 160
        // accepts; such a pod is rescued, as the hardware invariant judges)
        Instant at = decided.minus(MAX_SKEW).isBefore(now()) ? decided.minus(MAX_SKEW) : now();
        Instant visible = at.minus(VIEW_LAG).minusMillis(1);
        for (Pod p : server.pods.values()) {
            if (node.equals(p.getSpec().getNodeName()) && NodeAffinityOracle.running(p) && performanceOnly(p, node)
                    && server.boundAt.get(key(p)).isBefore(visible)) {
                violation("moves: " + node + " committed eco under running performance-only pod " + key(p) + " (" + shape(p)
                        + ") bound at " + server.boundAt.get(key(p)) + traceOf(node));
            }
        }
        if (by.plan().get(node) != Profile.ECO) {
            violation("moves: " + node + " committed eco by replica " + by.id + " while its plan wants " + by.plan().get(node));
        }
    }

    private static Instant later(Instant a, Instant b) {
        return b != null && b.isAfter(a) ? b : a;
    }

    /**
     * What a replica is about to write: its plan's wish for each node remembered, with how often it changed (the
     * policy's decisions); while Prometheus is out, whether the budget count the Joulie status keeps is held.
     */
    private void planned(Replica r, Planner.TickPlan plan) {
        if (plan.plan().targets().isEmpty()) {
            return; // a recheck: no new wish
        }
        plan.plan().targets().forEach((node, p) -> {
            if (r.planning.put(node, p) != p) {
                decisions.merge(node, 1, Integer::sum);
            }
        });
        if (budget && plan.rules().telemetry() == Telemetry.Status.UNAVAILABLE) {
            // the Lease holder's ticks: a replica that still believes it leads plans with the count of its own term
            // (read from the status at its first tick), and its writes are fenced
            JoulieStatus s = server.joulie.getStatus();
            if (s != null && server.holder == r.id && !server.statusByStaleLeader && s.budgetHold() != null && Objects.equals(s.budgetHold().budgetWatts(), BUDGET_WATTS)
                    && plan.rules().budget().filter(b -> "held".equals(b.basis())).isEmpty()) {
                violation("budget: replica " + r.id + " planned without the held budget count " + s.budgetHold().performanceNodes()
                        + " during an outage: " + plan.rules().budget() + "; its view's status: "
                        + (r.view.joulie == null || r.view.joulie.getStatus() == null ? null : r.view.joulie.getStatus().budgetHold())
                        + ", policy " + (r.view.joulie == null ? null : r.view.joulie.getSpec().policy()) + "; server's policy "
                        + server.joulie.getSpec().policy() + "; rules " + plan.rules());
            }
        }
    }

    private void checkFlapping() {
        for (String node : nodeNames) {
            int moves = changes.getOrDefault(node, 0);
            int allowed = 2 * decisions.getOrDefault(node, 0) + 2 * rescuesByNode.getOrDefault(node, 0) + 2;
            if (moves > allowed) {
                violation("flapping: " + node + " changed state " + moves + " times for " + decisions.getOrDefault(node, 0)
                        + " decisions and " + rescuesByNode.getOrDefault(node, 0) + " rescues");
            }
        }
    }

    // ---- the API server -----------------------------------------------------------------------------------------------

    enum Kind {
        NODE, NPP, POD, JOULIE
    }

    /** One change the watches deliver: the object after it, or null when it was deleted. */
    record Change(Instant at, Kind kind, String key, HasMetadata after) {
    }

    /** The API server's objects and their history, and the Lease's holder (by the server, not by what replicas think). */
    final class Server {
        long rv = 1;
        final Map<String, Node> nodes = new TreeMap<>();
        final Map<String, NodePowerProfile> npps = new TreeMap<>();
        final Map<String, Pod> pods = new TreeMap<>();
        Joulie joulie;
        /** The {@code Joulie} status was last written by a replica the Lease no longer named. */
        boolean statusByStaleLeader;
        volatile int holder;
        final List<Change> changes = new ArrayList<>();
        /** Index of {@code changes.get(0)} in the whole history (the delivered prefix is dropped). */
        long first;
        final Map<String, Instant> boundAt = new HashMap<>();
        final Map<String, Instant> podEnds = new HashMap<>();
        final Map<String, Instant> gateEnds = new HashMap<>();
        final Map<String, Instant> lastPerformanceLeft = new HashMap<>();
        /** Nodes whose power-profile label an admin set last (not the operator): the closed loop is the operator's. */
        final Set<String> labelledByHand = new HashSet<>();
        /** Per node, the performance-only pods escalation force left under the eco cap, as the eco spec landed. */
        final Map<String, Forced> forcedAtEco = new HashMap<>();
        /** When each node's current drain started, by the server's clock. */
        final Map<String, Instant> drainStarted = new HashMap<>();
        final Map<String, String> drainStartedBy = new HashMap<>();
        /** When the operator last set each node's label to draining-performance. */
        final Map<String, Instant> drainLabelled = new HashMap<>();
        /** Per node, its label values over time (what lagging caches may see). */
        final Map<String, TreeMap<Instant, String>> labels = new HashMap<>();

        @SuppressWarnings("unchecked")
        <T extends HasMetadata> Map<String, T> map(Kind kind) {
            return (Map<String, T>) switch (kind) {
                case NODE -> nodes;
                case NPP -> npps;
                case POD -> pods;
                case JOULIE -> throw new IllegalArgumentException();
            };
        }

        synchronized void put(Kind kind, String key, HasMetadata obj) {
            obj.getMetadata().setResourceVersion(Long.toString(++rv));
            HasMetadata before = map(kind).put(key, obj);
            if (kind == Kind.NODE) {
                labels.computeIfAbsent(key, k -> new TreeMap<>()).put(now(), label(key));
            }
            if (kind == Kind.POD) {
                podMoved((Pod) before, (Pod) obj);
            }
            if (kind == Kind.NPP) {
                capMoved((NodePowerProfile) before, (NodePowerProfile) obj);
            }
            log(kind, key, obj);
        }

        /**
         * The eco cap asked of a node whose drain outlasted the downgrade timeout under escalation {@code force}: the
         * performance-only pods running there now are the ones force leaves under the eco cap, also before (or without)
         * the status write that lists them in {@code forcedPods} landing. Asking performance again ends the exemption.
         */
        private void capMoved(NodePowerProfile before, NodePowerProfile after) {
            if (after.getSpec() == null) {
                return;
            }
            String node = after.getSpec().nodeName();
            Profile was = before == null || before.getSpec() == null ? null : before.getSpec().profile();
            Profile now = after.getSpec().profile();
            if (now == Profile.PERFORMANCE) {
                forcedAtEco.remove(node);
            } else if (was == Profile.PERFORMANCE && escalation == Escalation.FORCE && drainStarted.containsKey(node)
                    && !now().isBefore(drainStarted.get(node).plus(DOWNGRADE_TIMEOUT))) {
                forcedAtEco.put(node, new Forced(now(), pods.values().stream().filter(p -> node.equals(p.getSpec().getNodeName())
                        && NodeAffinityOracle.running(p) && performanceOnly(p, node)).map(ContractFaultInjection::key)
                        .collect(java.util.stream.Collectors.toSet())));
            }
        }

        synchronized void remove(Kind kind, String key) {
            HasMetadata before = map(kind).remove(key);
            if (kind == Kind.NPP && before instanceof NodePowerProfile npp && npp.getSpec() != null) {
                // the record of what force left there goes with it: from now on those pods are the operator's to rescue
                forcedAtEco.remove(npp.getSpec().nodeName());
            }
            if (kind == Kind.POD) {
                podMoved((Pod) before, null);
                boundAt.remove(key);
                podEnds.remove(key);
                gateEnds.remove(key);
            }
            log(kind, key, null);
        }

        /** A running performance-only pod that stops running or leaves (the settle time counts from then). */
        private void podMoved(Pod before, Pod after) {
            if (before == null || before.getSpec().getNodeName() == null || !NodeAffinityOracle.running(before)) {
                return;
            }
            String node = before.getSpec().getNodeName();
            if (performanceOnly(before, node) && (after == null || !NodeAffinityOracle.running(after))) {
                lastPerformanceLeft.put(node, now());
                trace(node, "left " + key(before));
            }
        }

        synchronized void log(Kind kind, String key, HasMetadata obj) {
            changes.add(new Change(now(), kind, key, obj));
        }

        /** Sets (null: removes) the power-profile label. */
        synchronized void setLabel(String node, String value) {
            Node current = nodes.get(node);
            Node changed = new NodeBuilder(current).build();
            changed.getMetadata().setLabels(new HashMap<>(current.getMetadata().getLabels()));
            if (value == null) {
                changed.getMetadata().getLabels().remove(JoulieApi.POWER_PROFILE_LABEL);
            } else {
                changed.getMetadata().getLabels().put(JoulieApi.POWER_PROFILE_LABEL, value);
            }
            put(Kind.NODE, node, changed);
        }

        String label(String node) {
            Node n = nodes.get(node);
            return n == null || n.getMetadata().getLabels() == null ? null : n.getMetadata().getLabels().get(JoulieApi.POWER_PROFILE_LABEL);
        }

        String labelAt(String node, Instant at) {
            var history = labels.get(node);
            var e = history == null ? null : history.floorEntry(at);
            return e == null ? null : e.getValue();
        }

        /** Whether the node's labels admitted the pod at some moment since {@code since} (a lagging kubelet may admit it). */
        boolean admittedSince(Pod p, String node, Instant since) {
            var history = labels.get(node);
            Map<String, String> base = new HashMap<>(nodes.get(node).getMetadata().getLabels());
            List<String> values = new ArrayList<>();
            values.add(labelAt(node, since));
            values.addAll(history.subMap(since, false, now(), true).values());
            for (String v : values) {
                if (v == null) {
                    base.remove(JoulieApi.POWER_PROFILE_LABEL);
                } else {
                    base.put(JoulieApi.POWER_PROFILE_LABEL, v);
                }
                if (NodeAffinityOracle.admits(p, node, base)) {
                    return true;
                }
            }
            return false;
        }

        /** Drops the history every view has delivered. */
        void trim() {
            long upTo = Math.min(replicas[0].view.cursor, replicas[1].view.cursor);
            int drop = (int) (upTo - first);
            if (drop > 10_000) {
                changes.subList(0, drop).clear();
                first = upTo;
            }
            if (rnd.nextInt(2000) == 0) {
                labels.values().forEach(h -> {
                    while (h.size() > 1 && h.firstKey().isBefore(now().minusSeconds(60))) {
                        h.pollFirstEntry();
                    }
                });
            }
        }
    }

    /**
     * One replica's requests, with the faults the run injects, the time they take (the calling thread waits in
     * {@link Handover#block} while the world goes on), and the server-side checks: resourceVersion preconditions, and
     * the fencing invariant by the server's Lease.
     */
    private final class Writes implements ApiWrites {
        private final Replica replica;

        Writes(Replica replica) {
            this.replica = replica;
        }

        /** The request takes {@code d} of simulated time. */
        private void takes(Duration d) {
            if (!replica.alive) {
                throw new KubernetesClientException("the operator process is gone", new SocketTimeoutException("killed"));
            }
            try {
                handover.block(now().plus(d));
            } catch (Handover.Killed e) {
                throw new KubernetesClientException("the operator process is gone", new SocketTimeoutException("killed"));
            }
        }

        /**
         * Sends one request: the injected fault or delay, then {@code apply} on the server (with the fencing check),
         * unless the fault lost it.
         *
         * @param conditional whether the request carries a precondition the server checks (a resourceVersion, a test)
         */
        private <T> T send(String node, String what, boolean conditional, boolean label, java.util.function.Supplier<T> apply) {
            if (!replica.alive) {
                throw new KubernetesClientException("the operator process is gone", new SocketTimeoutException("killed"));
            }
            writes++;
            String n = node == null ? "" : node;
            boolean mayFail = failedInARow.getOrDefault(n, 0) < MAX_FAILED_IN_A_ROW;
            int r = rnd.nextInt(1000);
            boolean webhook = label && now().isBefore(slowWebhookUntil);
            boolean applied;
            if (mayFail && r < 80) {
                failedInARow.merge(n, 1, Integer::sum);
                trace(node, "replica " + replica.id + ": " + what + " fails (injected " + r + ")");
                if (r < 30) {
                    count(Fault.CONFLICT);
                    throw new KubernetesClientException("injected conflict", 409, null);
                }
                if (r < 50) {
                    count(Fault.TOO_MANY_REQUESTS);
                    throw new KubernetesClientException("injected throttling", 429, null);
                }
                count(Fault.SERVER_ERROR);
                throw new KubernetesClientException("injected server error", 500 + rnd.nextInt(4), null);
            }
            if (mayFail && r < 90 || webhook) {
                // the client gives up after its timeout; the request was lost, or lands anyway (a webhook's Ignore)
                applied = webhook || r >= 85;
                if (!webhook) {
                    failedInARow.merge(n, 1, Integer::sum);
                } else {
                    count(Fault.SLOW_WEBHOOK);
                }
                takes(REQUEST_TIMEOUT);
                if (!applied) {
                    count(Fault.TIMEOUT_LOST);
                    trace(node, "replica " + replica.id + ": " + what + " timed out, lost");
                    throw new KubernetesClientException("injected timeout", new SocketTimeoutException("timeout"));
                }
                landing(node, what, conditional);
                apply.get();
                count(Fault.TIMEOUT_APPLIED);
                trace(node, "replica " + replica.id + ": " + what + " timed out, landed");
                throw new KubernetesClientException("injected timeout (the write landed)", new SocketTimeoutException("timeout"));
            }
            if (r >= 990) {
                count(Fault.SLOW_WRITE);
                takes(Duration.ofMillis(1_000 + rnd.nextInt((int) SLOW_WRITE.toMillis() - 1_000 + 1)));
            }
            landing(node, what, conditional);
            T result = apply.get();
            failedInARow.remove(n);
            // the Lease can move in the middle of a tick's writes
            if (rnd.nextInt(400) == 0) {
                changeLeader(Fault.LEADER_LOST_MID_TICK);
            }
            return result;
        }

        /** The fencing invariant, by the server's Lease: a replica that does not hold it lands only conditional writes. */
        private void landing(String node, String what, boolean conditional) {
            if (!replica.alive) {
                throw new KubernetesClientException("the operator process is gone", new SocketTimeoutException("killed"));
            }
            if (server.holder != replica.id) {
                if (conditional) {
                    count(Fault.STALE_LEADER_WRITE);
                    trace(node, "replica " + replica.id + " (not the Lease holder): " + what + " sent, conditional");
                } else {
                    violation("fencing: replica " + replica.id + " landed " + what + " without a precondition while the Lease is "
                            + server.holder + "'s" + traceOf(node));
                }
            }
        }

        @Override
        public NodePowerProfile create(NodePowerProfile npp) {
            String name = npp.getMetadata().getName();
            return send(npp.getSpec().nodeName(), "create " + name, true, false, () -> {
                synchronized (server) {
                    if (server.npps.containsKey(name)) {
                        throw new KubernetesClientException("AlreadyExists", 409, null);
                    }
                    NodePowerProfile stored = copy(npp);
                    stored.getMetadata().setGeneration(1L);
                    stored.getMetadata().setUid("uid-" + name + "-" + server.rv);
                    stored.setStatus(null);
                    server.put(Kind.NPP, name, stored);
                    return copy(stored);
                }
            });
        }

        @Override
        public NodePowerProfile update(NodePowerProfile npp) {
            String node = npp.getSpec().nodeName();
            return send(node, "spec " + npp.getSpec().profile(), true, false, () -> {
                synchronized (server) {
                    NodePowerProfile current = current(npp);
                    trace(node, "replica " + replica.id + ": spec " + npp.getSpec().profile());
                    NodePowerProfile stored = copy(current);
                    if (!Objects.equals(current.getSpec(), npp.getSpec())) {
                        stored.getMetadata().setGeneration(current.getMetadata().getGeneration() + 1);
                    }
                    stored.setSpec(npp.getSpec());
                    server.put(Kind.NPP, npp.getMetadata().getName(), stored);
                    return copy(stored);
                }
            });
        }

        @Override
        public NodePowerProfile updateStatus(NodePowerProfile npp) {
            String node = npp.getSpec().nodeName();
            return send(node, "status " + npp.getStatus().state(), true, false, () -> {
                synchronized (server) {
                    NodePowerProfile current = current(npp);
                    trace(node, "replica " + replica.id + ": status " + npp.getStatus().state() + " since "
                            + npp.getStatus().since() + " (" + npp.getStatus().reason() + ")");
                    NodePowerProfile stored = copy(current);
                    // the operator's fields; status.applied is the agent's and stays
                    stored.setStatus(npp.getStatus().withApplied(current.applied()));
                    server.put(Kind.NPP, npp.getMetadata().getName(), stored);
                    PowerState from = current.getStatus() == null ? null : current.getStatus().state();
                    PowerState to = npp.getStatus().state();
                    if (from != null && to != null && from != to) {
                        stateChanged(replica, node, from, to, current, Instant.parse(npp.getStatus().since()));
                    } else if (from == null && to == PowerState.DrainingPerformance) {
                        server.drainStarted.put(node, now()); // a new NodePowerProfile that starts draining
                        server.drainStartedBy.put(node, replica.id + " (clock " + replica.skew.toMillis() + " ms off)");
                    }
                    return copy(stored);
                }
            });
        }

        private NodePowerProfile current(NodePowerProfile npp) {
            NodePowerProfile current = server.npps.get(npp.getMetadata().getName());
            if (current == null) {
                throw new KubernetesClientException("NotFound", 404, null);
            }
            if (!current.getMetadata().getResourceVersion().equals(npp.getMetadata().getResourceVersion())) {
                throw new KubernetesClientException("the object has been modified", 409, null);
            }
            return current;
        }

        /** A delete with the object's resourceVersion as its precondition (ApiWrites): a stale one is a 409. */
        @Override
        public void delete(NodePowerProfile npp) {
            send(npp.getSpec() == null ? null : npp.getSpec().nodeName(), "delete " + npp.getMetadata().getName(), true, false, () -> {
                synchronized (server) {
                    current(npp);
                    server.remove(Kind.NPP, npp.getMetadata().getName());
                    return null;
                }
            });
        }

        @Override
        public NodePowerProfile get(String name) {
            synchronized (server) {
                NodePowerProfile npp = server.npps.get(name);
                return npp == null ? null : copy(npp);
            }
        }

        /**
         * A JSON patch whose first operation tests the label's value {@code expected} (the API server answers 422 when it
         * differs); with {@code expected} null a merge patch carrying the Node's resourceVersion (409 when it moved on;
         * ApiWrites).
         */
        @Override
        public void label(Node node, String key, String expected, String value) {
            String name = node.getMetadata().getName();
            String version = node.getMetadata().getResourceVersion();
            send(name, "label " + value + (expected == null ? " (resourceVersion " + version + ")" : " (test " + expected + ")"),
                    true, true, () -> {
                synchronized (server) {
                    if (!server.nodes.containsKey(name)) {
                        throw new KubernetesClientException("NotFound", 404, null);
                    }
                    if (expected != null && !expected.equals(server.nodes.get(name).getMetadata().getLabels().get(key))) {
                        trace(name, "replica " + replica.id + ": label " + value + " refused: not " + expected);
                        throw new KubernetesClientException("the label " + key + " is not " + expected, 422, null);
                    }
                    if (expected == null && !java.util.Objects.equals(version, server.nodes.get(name).getMetadata().getResourceVersion())) {
                        trace(name, "replica " + replica.id + ": label " + value + " refused: Node version " + version + " is stale");
                        throw new KubernetesClientException("the Node changed since version " + version, 409, null);
                    }
                    trace(name, "replica " + replica.id + ": label " + value);
                    if (JoulieApi.DRAINING_PERFORMANCE.equals(value) && !value.equals(server.label(name))) {
                        server.drainLabelled.put(name, now());
                    }
                    server.setLabel(name, value);
                    server.labelledByHand.remove(name);
                    return null;
                }
            });
        }

        /** Evictions are outside the fencing invariant (they cannot put a pod under an eco cap); counted when stale. */
        @Override
        public boolean evict(String namespace, String name) {
            String key = namespace + "/" + name;
            return send(null, "evict " + key, true, false, () -> {
                synchronized (server) {
                    if (!server.pods.containsKey(key)) {
                        throw new KubernetesClientException("NotFound", 404, null);
                    }
                    if (rnd.nextInt(3) == 0) {
                        count(Fault.EVICTION_REFUSED);
                        return false;
                    }
                    Pod p = server.pods.get(key);
                    terminate(p, p.getSpec().getTerminationGracePeriodSeconds() == null ? 30 : p.getSpec().getTerminationGracePeriodSeconds());
                    return true;
                }
            });
        }
    }

    static NodePowerProfile copy(NodePowerProfile o) {
        NodePowerProfile c = new NodePowerProfile();
        c.setMetadata(new ObjectMetaBuilder(o.getMetadata()).build());
        c.setSpec(o.getSpec());
        c.setStatus(o.getStatus());
        return c;
    }

    static String key(Pod p) {
        return p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
    }

    // ---- the agents ---------------------------------------------------------------------------------------------------

    /**
     * A node's agent and its hardware: applies its NodePowerProfile and reports, unless it is down. A report can be lost
     * after the apply (the status write failed): the hardware has the cap, the API server does not know; the agent
     * writes it again at its next resync.
     */
    private final class Agent {
        final String node;
        final boolean dvfs;
        /** What the agent last wrote to the package. */
        Profile hwProfile = Profile.PERFORMANCE;
        double hwWatts = 400;
        int throttle;
        long appliedGeneration;
        boolean applied;
        Instant downUntil = Instant.MIN;
        Instant resyncAt = Instant.MIN;
        String lastReport;

        Agent(String node, boolean dvfs) {
            this.node = node;
            this.dvfs = dvfs;
        }

        boolean hardwarePerformance() {
            return hwProfile == Profile.PERFORMANCE && throttle == 0;
        }

        boolean down() {
            return now().isBefore(downUntil);
        }

        void step() {
            if (down()) {
                return;
            }
            if (rnd.nextInt(800) == 0) {
                // one crash in four is a crash loop (CrashLoopBackOff): minutes without an agent, ticks go on meanwhile
                boolean loop = rnd.nextInt(4) == 0;
                downUntil = now().plusSeconds(loop ? 120 + rnd.nextInt(361) : 5 + rnd.nextInt(80));
                lastReport = null; // a new process reports what it finds
                // and remembers nothing of what it applied: it enforces the profile it finds (the caps stay on the hardware, and
                // the originals on disk, so a profile gone meanwhile still gets them back)
                appliedGeneration = -1;
                count(loop ? Fault.AGENT_CRASH_LOOP : Fault.AGENT_CRASH);
                trace(node, "agent down until " + downUntil);
                return;
            }
            NodePowerProfile npp = server.npps.get(JoulieApi.nodePowerProfileName(node));
            if (npp != null && npp.getSpec() != null) {
                long generation = npp.getMetadata().getGeneration();
                if (!applied || generation != appliedGeneration) {
                    Profile before = hwProfile;
                    hwProfile = npp.getSpec().profile();
                    var cpu = npp.getSpec().cpu(); // a percent resolves against the node's 400 W maximum
                    hwWatts = cpu.packagePowerCapWatts() != null ? Math.min(cpu.packagePowerCapWatts(), 400)
                            : 400 * cpu.packagePowerCapPercent() / 100;
                    if (dvfs) {
                        throttle = hwProfile == Profile.ECO ? 100 : before == Profile.ECO ? 100 : throttle;
                    }
                    if (before != hwProfile) {
                        trace(node, "agent wrote " + hwProfile + " (generation " + generation + ")");
                    }
                    appliedGeneration = generation;
                    applied = true;
                } else if (dvfs && hwProfile == Profile.PERFORMANCE && throttle > 0) {
                    throttle = Math.max(0, throttle - 25); // DVFS lifts its throttle a step at a time
                }
                report(generation);
            } else if (applied) {
                hwProfile = Profile.PERFORMANCE; // the originals back
                hwWatts = 400;
                throttle = 0;
                applied = false;
                report(0);
            }
        }

        /** The answer in {@code status.applied} of the node's NodePowerProfile, as the agent writes it (its own field). */
        void report(long generation) {
            String name = JoulieApi.nodePowerProfileName(node);
            NodePowerProfile current = server.npps.get(name);
            if (current == null) {
                return; // nothing to answer in
            }
            var cpu = new NodePowerProfileStatus.Cpu(generation == 0 ? ControlResult.RESTORED : ControlResult.APPLIED,
                    dvfs ? "dvfs" : "powercap", hwWatts, dvfs ? (double) throttle : null, null, generation == 0 ? "restored" : "applied");
            var answer = new NodePowerProfileStatus.Applied(generation == 0 ? current.getMetadata().getGeneration() : generation,
                    cpu, null, null);
            String text = name + answer;
            if (text.equals(lastReport) || now().isBefore(resyncAt) && lastReport == null) {
                return; // written only on change, as the agent does (or again at its resync after a lost write)
            }
            if (rnd.nextInt(20) == 0) {
                lastReport = null; // the status write was lost: the hardware has it, the API server does not
                resyncAt = now().plusSeconds(5 + rnd.nextInt(25));
                count(Fault.REPORT_LOST);
                trace(node, "agent's report lost: " + answer.cpu().result() + " generation " + answer.generation());
                return;
            }
            lastReport = text;
            NodePowerProfile stored = copy(current);
            NodePowerProfileStatus was = current.getStatus();
            stored.setStatus(was == null ? NodePowerProfileStatus.ofApplied(answer) : was.withApplied(answer));
            server.put(Kind.NPP, name, stored);
        }
    }

    /**
     * Prometheus as the budget rule reads it: each node's draw, by the cap its hardware is at; out during outages. While
     * Prometheus is slow, a read takes 20 to 90 s of the tick's time (eight queries near their timeout), at most the
     * tick's telemetry budget, after which it counts as unavailable (as PrometheusTelemetry does).
     */
    private Telemetry telemetry(Replica r, Duration limit) {
        if (now().isBefore(slowPrometheusUntil) && r.alive) {
            Duration takes = Duration.ofSeconds(20 + rnd.nextInt(70));
            try {
                handover.block(now().plus(takes.compareTo(limit) > 0 ? limit : takes));
            } catch (Handover.Killed e) {
                return Telemetry.unavailable("the operator process is gone");
            }
            if (takes.compareTo(limit) > 0) {
                return Telemetry.unavailable("the telemetry budget of " + limit + " is spent");
            }
        }
        if (!budget) {
            return Telemetry.DISABLED;
        }
        if (now().isBefore(outageUntil)) {
            return Telemetry.unavailable("injected outage");
        }
        Map<String, Telemetry.NodeSamples> samples = new TreeMap<>();
        for (String node : nodeNames) {
            Agent a = agents.get(node);
            double w = a == null || a.hardwarePerformance() ? PERF_DRAW : ECO_DRAW;
            samples.put(node, new Telemetry.NodeSamples(Optional.of(new Telemetry.Sample(w, Duration.ZERO)), Optional.empty()));
        }
        return Telemetry.available(samples, OptionalDouble.empty(), OptionalDouble.empty());
    }

    // ---- a replica of the operator ------------------------------------------------------------------------------------

    /**
     * One operator process: the real loop, watchdog, planner, actuation and ledger over a view of its own, on a clock of
     * its own (the server's, skewed), leading while it believes it holds the Lease.
     */
    private final class Replica {
        final int id;
        /** How far this replica's clock is off the server's. */
        final Duration skew;
        final Clock clock;
        final View view;
        final PlannerLoop loop;
        final ContractWatch watch;
        final PlannerStatus status = new PlannerStatus();
        final List<Runnable> openings = new CopyOnWriteArrayList<>();
        /** What the plan of this replica's running (or last) tick asks of each node: a tick's moves are judged by it. */
        final Map<String, Profile> planning = new ConcurrentHashMap<>();
        /**
         * What the plan of its last completed tick asked: a recheck carries on from that one (PlannerLoop), also while a
         * newer tick is still writing, and its moves are judged by it.
         */
        final Map<String, Profile> planned = new ConcurrentHashMap<>();
        volatile boolean alive = true;
        /** After the server gave its Lease away: until when this replica still believes it leads. */
        volatile Instant believesUntil = Instant.MIN;
        boolean mustTick;
        volatile boolean reportedSinceRun;
        Instant nextTick;
        Handover.Activity watchdog;
        Handover.Activity tick;

        Replica(int id) {
            this.id = id;
            this.skew = Duration.ofMillis(rnd.nextInt((int) MAX_SKEW.toMillis() * 2 + 1) - MAX_SKEW.toMillis());
            this.clock = Clock.offset(ContractFaultInjection.this.clock, skew);
            this.nextTick = now().plus(INTERVAL);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            PlannerMetrics metrics = new PlannerMetrics(registry);
            EventSink events = new EventSink() {
                @Override
                public void node(String node, EventReason reason, String message) {
                    if (RESCUE_HELD_REASONS.contains(reason.name())) {
                        rescueHeld.put(node, now());
                    }
                }

                @Override
                public void installation(EventReason reason, String message) {
                }

                @Override
                public void operator(EventReason reason, String message) {
                }
            };
            OperatorSettings settings = new OperatorSettings(new TestConfig()
                    .with("DOWNGRADE_ESCALATION", escalation.name().toLowerCase(java.util.Locale.ROOT))
                    .with("MAX_TRANSITIONS_PER_TICK", "4").with("MAX_EVICTIONS_PER_TICK", "2"));
            view = new View(this);
            TelemetrySource telemetry = new TelemetrySource(registry) {
                @Override
                public Telemetry read(Duration limit) {
                    return ContractFaultInjection.this.telemetry(Replica.this, limit);
                }
            };
            InformerContextProvider context = new InformerContextProvider(view, settings, clock, telemetry);
            KubernetesActuator actuation = new KubernetesActuator(KubernetesActuator.fenced(new Writes(this), this::leading),
                    view, metrics);
            TickGate gate = new TickGate(this::leading, view::unsynced, openings::add);
            PolicyReloader policy = new PolicyReloader(new Planner(settings.planner()), Optional.empty(),
                    new EffectivePolicy(settings.planner()), view::installation, config -> { }, events);
            PlanExecutor executor = new PlanExecutor(actuation, name -> {
                NodePowerProfile p = view.profile(name);
                return p == null || p.getSpec() == null ? null : p.getSpec().nodeName();
            }, events, metrics, this::leading, 1, clock) {
                @Override
                public Result execute(Planner.TickPlan plan, PlannerSettings s, Instant deadline) {
                    planned(Replica.this, plan);
                    Result r = super.execute(plan, s, deadline);
                    if (!r.interrupted()) {
                        planned.clear();
                        planned.putAll(plan.plan().targets());
                    }
                    return r;
                }
            };
            TickRecorder recorder = new TickRecorder(metrics, new RuleMetrics(registry), status, events, clock);
            ContractLedger ledger = new ContractLedger(metrics, events, clock, view::performancePodSeen);
            loop = new PlannerLoop(gate, policy, context, executor, recorder, ledger, new EnergyMetrics(registry, node -> 0.0));
            watch = new ContractWatch(loop::recheck, clock);
            view.onNodeEvent(node -> {
                reportedSinceRun = true;
                watch.report(node);
            });
            loop.wakeupsTo(watch::at);
            view.list(); // a new process lists everything
        }

        /**
         * Whether the watchdog's worker would find anything to do now: a watch reported a node, or a moment came (by this
         * replica's clock). The harness starts a watchdog pass only then (an empty pass does nothing).
         */
        boolean watchdogHasWork() {
            if (reportedSinceRun) {
                return true;
            }
            Instant now = clock.instant();
            return watch.pending().values().stream().anyMatch(at -> !at.isAfter(now));
        }

        /** The plan the calling thread's moves are judged by: a recheck's is the last completed tick's. */
        Map<String, Profile> plan() {
            Handover.Activity a = handover.current();
            return a != null && a.name.startsWith("watch") ? planned : planning;
        }

        /** What this replica's elector believes: it holds the Lease on the server, or it has not noticed losing it yet. */
        boolean leading() {
            return alive && (server.holder == id || now().isBefore(believesUntil));
        }

        /** Its elector acquired the Lease: the gate opens and the first tick plans at once. */
        void acquired() {
            server.holder = id;
            believesUntil = Instant.MIN;
            mustTick = true;
            openings.forEach(Runnable::run);
        }
    }

    /** A replica's informer caches: the API server's changes, delivered late, with gaps, and the watch events they raise. */
    private final class View extends ClusterView {
        final Replica replica;
        final Map<String, Node> nodes = new TreeMap<>();
        final Map<String, NodePowerProfile> npps = new TreeMap<>();
        final Map<String, Pod> pods = new TreeMap<>();
        final Map<String, TreeSet<String>> performance = new HashMap<>();
        final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();
        final PodSightings sightings;
        Joulie joulie;
        long cursor;
        Instant gapUntil = Instant.MIN;

        View(Replica replica) {
            super(null, replica.clock);
            this.replica = replica;
            this.sightings = new PodSightings(replica.clock, n -> performance.getOrDefault(n, new TreeSet<>()), nodes::containsKey);
        }

        boolean gap() {
            return now().isBefore(gapUntil);
        }

        void deliver() {
            if (gap()) {
                return;
            }
            int lag = rnd.nextInt(MAX_LAG_STEPS + 1);
            if (lag > 0) {
                count(Fault.STALE_DELIVERY);
            }
            Instant upTo = now().minus(STEP.multipliedBy(lag));
            while (cursor - server.first < server.changes.size()) {
                Change c = server.changes.get((int) (cursor - server.first));
                if (c.at().isAfter(upTo)) {
                    break;
                }
                apply(c);
                cursor++;
            }
        }

        /** The initial list: everything the API server holds now, as add events. */
        void list() {
            cursor = server.first + server.changes.size();
            joulie = server.joulie;
            server.nodes.forEach((k, v) -> apply(new Change(now(), Kind.NODE, k, v)));
            server.npps.forEach((k, v) -> apply(new Change(now(), Kind.NPP, k, v)));
            server.pods.forEach((k, v) -> apply(new Change(now(), Kind.POD, k, v)));
        }

        private void apply(Change c) {
            switch (c.kind()) {
                case JOULIE -> joulie = (Joulie) c.after();
                case NPP -> {
                    NodePowerProfile before = put(npps, c.key(), (NodePowerProfile) c.after());
                    if (before != null || c.after() != null) {
                        profileChanged(before, (NodePowerProfile) c.after()); // the operator's own reading of the change
                    }
                }
                case NODE -> {
                    Node before = put(nodes, c.key(), (Node) c.after());
                    Node after = (Node) c.after();
                    if (after == null) {
                        sightings.forget(c.key());
                    } else if (before == null) {
                        sightings.nodeSeen(c.key());
                    } else if (before != null && !java.util.Objects.equals(label(before), label(after))) {
                        event(c.key());
                    }
                }
                case POD -> {
                    Pod before = put(pods, c.key(), (Pod) c.after());
                    Pod after = (Pod) c.after();
                    if (before != null) { // whether it counted then depended on the labels then: drop it regardless
                        performance.getOrDefault(node(before), new TreeSet<>()).remove(c.key());
                    }
                    if (after != null && operatorSees(after)) {
                        performance.computeIfAbsent(node(after), n -> new TreeSet<>()).add(c.key());
                    }
                    String from = before == null ? null : node(before);
                    String to = after == null ? null : node(after);
                    if (sightings.seen(c.key(), from, to)) {
                        event(to != null && !to.isEmpty() ? to : from);
                    }
                }
            }
        }

        /**
         * What the operator's own classifier counts (the code under test, not the harness's oracle), as its pod watch
         * does: not a pod bound straight to a node whose labels, as this view has them, make the kubelet reject it.
         */
        private boolean operatorSees(Pod p) {
            if (!PodClassifier.isActive(p) || PodClassifier.classify(p) != PodClass.PERFORMANCE) {
                return false;
            }
            Node n = p.getSpec().getNodeName() == null ? null : nodes.get(p.getSpec().getNodeName());
            return n == null || PodClassifier.mayRunOn(p, n.getMetadata().getName(), n.getMetadata().getLabels());
        }

        private <T> T put(Map<String, T> map, String key, T value) {
            return value == null ? map.remove(key) : map.put(key, value);
        }

        private static String node(Pod p) {
            return p.getSpec().getNodeName() == null ? "" : p.getSpec().getNodeName();
        }

        private static String label(Node n) {
            return n.getMetadata().getLabels() == null ? null : n.getMetadata().getLabels().get(JoulieApi.POWER_PROFILE_LABEL);
        }

        private void event(String node) {
            if (node != null && !node.isEmpty()) {
                listeners.forEach(l -> l.accept(node));
            }
        }

        @Override
        protected void nodeEvent(String node) {
            event(node);
        }

        @Override
        public void onNodeEvent(Consumer<String> listener) {
            listeners.add(listener);
        }

        @Override
        public List<String> unsynced() {
            return gap() ? List.of("Pod (reconnecting)") : List.of();
        }

        @Override
        public Joulie installation() {
            return joulie;
        }

        @Override
        public Collection<Node> nodes() {
            return nodes.values();
        }

        @Override
        public Node node(String name) {
            return nodes.get(name);
        }

        @Override
        public Collection<NodePowerProfile> profiles() {
            return npps.values();
        }

        @Override
        public NodePowerProfile profile(String name) {
            return npps.get(name);
        }

        @Override
        public List<String> performancePods(String node) {
            return List.copyOf(performance.getOrDefault(node, new TreeSet<>()));
        }

        @Override
        public long performancePodCount() {
            return performance.values().stream().mapToLong(Set::size).sum();
        }

        @Override
        public Instant performancePodSeen(String pod) {
            return sightings.firstSeen(pod);
        }

        @Override
        public Instant lastPerformancePod(String node) {
            return sightings.lastOn(node);
        }

        /** No agent publishes a NodeHardware here: every node's hardware is unknown (CPU only, caps resolved by the agent). */
        @Override
        public io.joulie.api.v1alpha1.NodeHardwareStatus hardware(String node) {
            return null;
        }

        /** No NodeHardware here: a node is served by an agent when one runs there (as its NodeHardware would say). */
        @Override
        public AgentReport agentReport(String node, NodePowerProfile npp) {
            return new AgentReport(applied(npp), agents.containsKey(node));
        }

        private static NodePowerProfileStatus.Applied applied(NodePowerProfile npp) {
            return npp == null ? null : npp.applied();
        }
    }
}
