package io.joulie.operator.runtime;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
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
import io.joulie.operator.metrics.PlannerMetrics;
import io.joulie.operator.metrics.RuleMetrics;
import io.joulie.operator.telemetry.TelemetrySource;
import io.joulie.planner.AgentReport;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.Planner;
import io.joulie.planner.PodClass;
import io.joulie.planner.PodClassifier;
import io.joulie.planner.Telemetry;
import io.joulie.testkit.FakeClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Seeded, randomised fault injection of the operator's side of the performance contract: the real planner, guard,
 * actuation ({@link KubernetesActuator} behind its fenced write port), plan executor, contract ledger, recheck and
 * watchdog ({@link PlannerLoop}, {@link ContractWatch}), the context provider over a view that lags the API server, the
 * policy reloader and the tick recorder, for two replicas that take turns leading, against an in-memory API server with
 * simulated agents, a scheduler and a workload. One step is half a second on a {@link FakeClock}; the leader ticks every
 * {@link #INTERVAL}. Injected: 409, 429, 5xx and timeouts (the write lost, or applied anyway) on any write; watch gaps
 * (a view unsynced, then a relist) and stale caches (events delivered up to two steps late); performance-only Pods bound
 * at any moment on any node ({@code spec.nodeName}) and by a scheduler whose view of the labels lags; agent crashes and
 * restarts (nothing applied, nothing reported while down) and DVFS nodes that unthrottle over several steps; leadership
 * lost in the middle of a tick's writes; operator restarts (all memory lost); Prometheus outages under a power budget.
 *
 * <p>After every step it checks the invariants:
 * <ol>
 * <li><b>contract</b>: no active performance-only Pod runs on a node whose NodePowerProfile asks for the eco cap
 *     (escalation {@code force}'s pods excepted) for longer than one planning interval;</li>
 * <li><b>closed loop</b>: no node is labelled {@code performance} while its agent has reported but its hardware is not at
 *     the performance cap (eco cap, or a DVFS throttle left);</li>
 * <li><b>legal moves</b>: every state change the API server records is one the state machine allows at that moment:
 *     no ActivePerformance → ActiveEco, a drain only when the plan wants eco, a commit only after the settle time with no
 *     performance-only Pod the operator could have seen, a rescue only with a performance-only Pod on the node, a raise
 *     only when the plan wants performance;</li>
 * <li><b>fencing</b>: no write from a replica that does not lead;</li>
 * <li><b>budget</b>: while Prometheus is out, every tick of a leader holds the power budget's count the
 *     {@code Joulie} status keeps, also right after a restart;</li>
 * </ol>
 * and at the end, <b>no flapping</b>: no node changed state more than twice per change of what the plan asked for it
 * plus twice per rescue. Used by {@code ContractFaultInjectionTest} (fixed seeds, in the test run) and as a longer run
 * from the command line (docs/reliability.md).
 */
final class ContractFaultInjection {
    static final Duration STEP = Duration.ofMillis(500);
    static final Duration INTERVAL = Duration.ofSeconds(10);
    static final Duration SETTLE = Duration.ofSeconds(2);
    static final Duration CONFIRMATION = Duration.ofSeconds(30);
    static final Duration DOWNGRADE_TIMEOUT = Duration.ofSeconds(60);
    /** The most a view lags the API server while it watches (stale caches). */
    static final int MAX_LAG_STEPS = 2;
    static final int NODES = 12;
    static final double BUDGET_WATTS = 2_500;
    static final double PERF_DRAW = 300;
    static final double ECO_DRAW = 100;

    /** What was injected, counted per kind. */
    enum Fault {
        CONFLICT, TOO_MANY_REQUESTS, SERVER_ERROR, TIMEOUT_LOST, TIMEOUT_APPLIED, WATCH_GAP, STALE_DELIVERY,
        POD_BOUND_DIRECTLY, POD_SCHEDULED, POD_ON_DRAINING_ALLOWED, AGENT_CRASH, LEADER_LOST_MID_TICK, LEADER_CHANGE,
        OPERATOR_RESTART, PROMETHEUS_OUTAGE, EVICTION_REFUSED, POLICY_CHANGE
    }

    /**
     * What a run did and found.
     *
     * @param violations        invariant violations, in words (empty when the run is clean)
     * @param rescues           performance-only pods found under the eco cap on the API server (distinct pod and node)
     * @param longestUnderEco   the longest a performance-only pod ran on a node whose NodePowerProfile asked for eco
     * @param underHardwareEco  pod-seconds under a hardware eco cap (an agent that is down cannot lift it), for the record
     */
    record Figures(long seed, long steps, long ticks, long rechecks, long writes, long stateChanges, long decisions,
                   long rescues, Duration longestUnderEco, double underHardwareEco, Map<Fault, Integer> faults,
                   List<String> violations) {
    }

    private final long seed;
    private final Random rnd;
    private final Escalation escalation;
    private final boolean budget;
    private final FakeClock clock = new FakeClock();
    private final Server server = new Server();
    private final Replica[] replicas = new Replica[2];
    private final Map<String, Agent> agents = new TreeMap<>();
    private final Map<Fault, Integer> faults = new EnumMap<>(Fault.class);
    private final List<String> violations = new ArrayList<>();
    private final List<String> nodeNames = new ArrayList<>();
    private int leader;
    private boolean leaderMustTick = true;
    private Instant nextTick;
    private Instant outageUntil = Instant.MIN;
    private long ticks;
    private long unplanned;
    private long rechecks;
    private long writes;
    private long stateChanges;
    private long podCount;
    private double staticFrac = 0.5;
    /** What the leader's latest plan asked of each node, and how often that changed. */
    private final Map<String, Profile> requested = new HashMap<>();
    private final Map<String, Integer> decisions = new HashMap<>();
    private final Map<String, Integer> changes = new HashMap<>();
    private final Map<String, Integer> rescuesByNode = new HashMap<>();
    /** When each (pod, node) went under an eco NodePowerProfile, while it is. */
    private final Map<String, Instant> underEco = new HashMap<>();
    private final Set<String> reported = new HashSet<>();
    private long rescues;
    private Duration longest = Duration.ZERO;
    private double hardwareExposure;

    enum Escalation {
        HOLD, FORCE, EVICT
    }

    ContractFaultInjection(long seed) {
        this.seed = seed;
        this.rnd = new Random(seed);
        this.escalation = Escalation.values()[(int) Math.floorMod(seed, 3)];
        this.budget = seed % 2 == 0;
        for (int i = 1; i <= NODES; i++) {
            String name = "n%02d".formatted(i);
            nodeNames.add(name);
            server.put(Kind.NODE, name, new NodeBuilder().withNewMetadata().withName(name).withUid("uid-" + name)
                    .withLabels(new HashMap<>(Map.of("joulie.io/managed", "true"))).endMetadata().withNewSpec().endSpec().build());
            // the last two nodes run no agent (nothing reports for them); two more are DVFS-only (they unthrottle slowly)
            if (i <= NODES - 2) {
                agents.put(name, new Agent(name, i > NODES - 4));
            }
        }
        server.joulie = joulie(null);
        server.log(Kind.JOULIE, Joulie.ACTIVE_NAME, server.joulie);
        replicas[0] = new Replica(0);
        replicas[1] = new Replica(1);
        nextTick = clock.instant();
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
        while (ticks < tickCount) {
            step();
            steps++;
        }
        checkFlapping();
        return new Figures(seed, steps, ticks, rechecks, writes, stateChanges,
                decisions.values().stream().mapToLong(Integer::longValue).sum(), rescues, longest, hardwareExposure,
                Map.copyOf(faults), List.copyOf(violations));
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
        if (!replicas[leader].watch.runDue().isEmpty()) {
            rechecks++;
        }
        if (leaderMustTick || !now().isBefore(nextTick)) {
            Replica lead = replicas[leader];
            if (lead.loop.tick()) {
                ticks++;
                leaderMustTick = false;
                nextTick = now().plus(INTERVAL);
                publishStatus(lead);
            } else if (!now().isBefore(nextTick)) {
                nextTick = now().plus(INTERVAL); // a tick that could not plan (unsynced, leadership lost): the next one
                unplanned++;
            }
        }
        check();
    }

    /** What the Joulie reconciler does with the leader's report: the status, with the budget count it holds. */
    private void publishStatus(Replica r) {
        r.status.latest().ifPresent(report -> {
            JoulieStatus before = server.joulie.getStatus();
            JoulieStatus after = new JoulieStatus(null, null, null, null, report.nodes(), null, report.budgetHold());
            if (before == null || !java.util.Objects.equals(before.budgetHold(), after.budgetHold())) {
                Joulie j = joulie(server.joulie.getSpec().policy());
                j.setStatus(after);
                server.joulie = j;
                server.log(Kind.JOULIE, Joulie.ACTIVE_NAME, j);
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

    /** The workload, the scheduler, the policy, outages, leadership and restarts. */
    private void world() {
        // a new decision now and then
        if (rnd.nextInt(400) == 0) {
            staticFrac = List.of(0.25, 0.5, 0.75, 1.0).get(rnd.nextInt(4));
            Joulie j = joulie(policy(staticFrac));
            j.setStatus(server.joulie.getStatus());
            server.joulie = j;
            server.log(Kind.JOULIE, Joulie.ACTIVE_NAME, j);
            count(Fault.POLICY_CHANGE);
        }
        // performance-only pods: through the scheduler (some also admit draining nodes), or bound past it
        if (rnd.nextInt(8) == 0) {
            createPod(null, rnd.nextInt(4) == 0);
        }
        if (rnd.nextInt(60) == 0) {
            createPod(nodeNames.get(rnd.nextInt(NODES)), false);
            count(Fault.POD_BOUND_DIRECTLY);
        }
        schedule();
        for (Pod p : List.copyOf(server.pods.values())) {
            String key = key(p);
            String phase = p.getStatus().getPhase();
            Instant end = server.podEnds.get(key);
            if ("Running".equals(phase) && end != null && !now().isBefore(end)) {
                Pod done = new PodBuilder(p).editStatus().withPhase("Succeeded").endStatus().build();
                server.put(Kind.POD, key, done);
                server.podEnds.put(key, now().plusSeconds(10));
            } else if ("Succeeded".equals(phase) && !now().isBefore(end)) {
                server.remove(Kind.POD, key);
            }
        }
        // Prometheus
        if (budget && now().isAfter(outageUntil) && rnd.nextInt(300) == 0) {
            outageUntil = now().plusSeconds(20 + rnd.nextInt(100));
            count(Fault.PROMETHEUS_OUTAGE);
        }
        // watch gaps: a view stops watching for up to a third of an interval, then lists again
        for (Replica r : replicas) {
            if (!r.view.gap() && rnd.nextInt(250) == 0) {
                r.view.gapUntil = now().plusMillis(500 + rnd.nextInt(3000));
                int id = r.id;
                traces.keySet().forEach(n -> trace(n, "replica " + id + " watch gap until " + r.view.gapUntil));
                count(Fault.WATCH_GAP);
            }
        }
        // leadership moves between ticks (a Lease not renewed), a replica restarts (a crash, an upgrade)
        if (rnd.nextInt(500) == 0) {
            changeLeader(Fault.LEADER_CHANGE);
        }
        if (rnd.nextInt(700) == 0) {
            int i = rnd.nextInt(2);
            replicas[i] = new Replica(i);
            traces.keySet().forEach(n -> trace(n, "replica " + i + " restarted"));
            if (i == leader) {
                leaderMustTick = true;
            }
            count(Fault.OPERATOR_RESTART);
        }
    }

    private void changeLeader(Fault why) {
        traces.keySet().forEach(n -> trace(n, "leader " + (1 - leader) + " (" + why + ")"));
        leader = 1 - leader;
        leaderMustTick = true;
        replicas[leader].openings.forEach(Runnable::run); // what the elector tells a new leader
        count(why);
    }

    private void createPod(String node, boolean admitsDraining) {
        String name = "p" + (++podCount);
        PodBuilder b = new PodBuilder().withNewMetadata().withNamespace("hpc").withName(name).endMetadata()
                .withNewSpec().withNodeName(node).endSpec().withNewStatus().withPhase(node == null ? "Pending" : "Running")
                .endStatus();
        if (admitsDraining) {
            b.editSpec().withNewAffinity().withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
                    .addNewNodeSelectorTerm().withMatchExpressions(new NodeSelectorRequirementBuilder()
                            .withKey(JoulieApi.POWER_PROFILE_LABEL).withOperator("In")
                            .withValues("performance", JoulieApi.DRAINING_PERFORMANCE).build())
                    .endNodeSelectorTerm().endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().endAffinity()
                    .endSpec();
        } else {
            b.editSpec().withNodeSelector(Map.of(JoulieApi.POWER_PROFILE_LABEL, "performance")).endSpec();
        }
        Pod pod = b.build();
        server.put(Kind.POD, key(pod), pod);
        if (node != null) {
            bound(pod, node);
        }
    }

    private void bound(Pod pod, String node) {
        trace(node, "bound " + key(pod));
        server.boundAt.put(key(pod), now());
        server.podEnds.put(key(pod), now().plusSeconds(5 + rnd.nextInt(115)));
    }

    /** Binds pending pods to nodes whose label admitted them a moment ago (the scheduler's cache lags the labels). */
    private void schedule() {
        for (Pod p : List.copyOf(server.pods.values())) {
            if (p.getSpec().getNodeName() != null) {
                continue;
            }
            Instant seenAt = now().minusMillis(rnd.nextInt(1200));
            boolean draining = p.getSpec().getAffinity() != null;
            List<String> fit = nodeNames.stream().filter(n -> {
                String label = server.labelAt(n, seenAt);
                return "performance".equals(label) || (draining && JoulieApi.DRAINING_PERFORMANCE.equals(label));
            }).toList();
            if (fit.isEmpty()) {
                continue;
            }
            String node = fit.get(rnd.nextInt(fit.size()));
            Pod bound = new PodBuilder(p).editSpec().withNodeName(node).endSpec().editStatus().withPhase("Running").endStatus()
                    .build();
            server.put(Kind.POD, key(bound), bound);
            bound(bound, node);
            count(draining ? Fault.POD_ON_DRAINING_ALLOWED : Fault.POD_SCHEDULED);
        }
    }

    // ---- invariants ---------------------------------------------------------------------------------------------------

    private void violation(String what) {
        if (violations.size() < 50) {
            violations.add("seed " + seed + ", " + now() + ": " + what);
        }
    }

    /** The last things that happened to each node (named in a violation's trace). */
    private final Map<String, java.util.ArrayDeque<String>> traces = new HashMap<>();

    private void trace(String node, String what) {
        var t = traces.computeIfAbsent(node, n -> new java.util.ArrayDeque<>());
        t.addLast(now() + " " + what);
        if (t.size() > 40) {
            t.removeFirst();
        }
    }

    private String traceOf(String node) {
        return System.getProperty("faults.trace") == null ? "" : "\n    " + String.join("\n    ", traces.getOrDefault(node, new java.util.ArrayDeque<>()));
    }

    private void check() {
        Set<String> still = new HashSet<>();
        for (Pod p : server.pods.values()) {
            String node = p.getSpec().getNodeName();
            if (node == null || !performanceOnly(p)) {
                continue;
            }
            NodePowerProfile npp = server.npps.get(JoulieApi.nodePowerProfileName(node));
            boolean forced = npp != null && npp.getStatus() != null && npp.getStatus().forcedPods() != null
                    && npp.getStatus().forcedPods().contains(key(p));
            if (npp != null && npp.getSpec().profile() == Profile.ECO && !forced) {
                String k = key(p) + "@" + node;
                still.add(k);
                Instant since = underEco.computeIfAbsent(k, x -> {
                    rescues++;
                    return now();
                });
                Duration d = Duration.between(since, now());
                if (d.compareTo(longest) > 0) {
                    longest = d;
                }
                if (d.compareTo(INTERVAL) > 0 && reported.add(k)) {
                    violation("contract: performance-only pod " + key(p) + " on node " + node + " under an eco "
                            + "NodePowerProfile for " + d.toMillis() + " ms" + traceOf(node));
                }
            }
            Agent a = agents.get(node);
            if (a != null && !a.hardwarePerformance()) {
                hardwareExposure += STEP.toMillis() / 1000.0;
            }
        }
        underEco.keySet().retainAll(still);
        for (String node : nodeNames) {
            Agent a = agents.get(node);
            if ("performance".equals(server.label(node)) && a != null && a.everReported && !a.hardwarePerformance()) {
                violation("closed loop: node " + node + " labelled performance at the hardware cap " + a.hwProfile + " (throttle "
                        + a.throttle + " %)");
            }
        }
    }

    static boolean performanceOnly(Pod p) {
        return PodClassifier.isActive(p) && PodClassifier.classify(p) == PodClass.PERFORMANCE;
    }

    /** A state change the API server records: is it one the state machine allows now? */
    private void stateChanged(String node, PowerState from, PowerState to, NodePowerProfile before) {
        stateChanges++;
        changes.merge(node, 1, Integer::sum);
        Profile wanted = requested.get(node);
        switch (from) {
            case ActivePerformance -> {
                if (to == PowerState.ActiveEco) {
                    violation("moves: " + node + " ActivePerformance -> ActiveEco without draining");
                } else if (wanted != Profile.ECO) {
                    violation("moves: " + node + " drained while the plan wants " + wanted);
                }
            }
            case DrainingPerformance -> {
                if (to == PowerState.ActivePerformance) {
                    if (wanted != Profile.PERFORMANCE) {
                        violation("moves: " + node + " raised while the plan wants " + wanted);
                    }
                } else {
                    commit(node, before);
                }
            }
            case ActiveEco -> {
                if (to == PowerState.ActivePerformance) {
                    if (wanted != Profile.PERFORMANCE) {
                        violation("moves: " + node + " raised while the plan wants " + wanted);
                    }
                } else {
                    // a rescue: a performance-only pod is (or was a moment ago) on the node
                    Instant recent = now().minus(STEP.multipliedBy(MAX_LAG_STEPS + 1));
                    boolean pod = server.pods.values().stream().anyMatch(p -> node.equals(p.getSpec().getNodeName())
                            && performanceOnly(p)) || server.lastPerformanceLeft.getOrDefault(node, Instant.MIN).isAfter(recent);
                    if (!pod) {
                        violation("moves: " + node + " ActiveEco -> DrainingPerformance without a performance-only pod on it");
                    }
                    rescuesByNode.merge(node, 1, Integer::sum);
                }
            }
        }
    }

    /** DrainingPerformance -> ActiveEco: after the settle time, with no performance-only pod the operator could have seen. */
    private void commit(String node, NodePowerProfile before) {
        Instant drainSince = Instant.parse(before.getStatus().since());
        boolean forced = escalation == Escalation.FORCE && !now().isBefore(drainSince.plus(DOWNGRADE_TIMEOUT));
        if (forced) {
            return;
        }
        Instant quiet = later(drainSince, server.lastPerformanceLeft.get(node));
        if (now().isBefore(quiet.plus(SETTLE))) {
            violation("moves: " + node + " committed eco " + Duration.between(quiet, now()).toMillis()
                    + " ms after its last performance-only pod or its drain's start, before the settle time" + traceOf(node));
        }
        Instant visible = now().minus(STEP.multipliedBy(MAX_LAG_STEPS)).minusMillis(1);
        for (Pod p : server.pods.values()) {
            if (node.equals(p.getSpec().getNodeName()) && performanceOnly(p) && server.boundAt.get(key(p)).isBefore(visible)) {
                violation("moves: " + node + " committed eco under performance-only pod " + key(p) + " bound at "
                        + server.boundAt.get(key(p)));
            }
        }
        if (requested.get(node) != Profile.ECO) {
            violation("moves: " + node + " committed eco while the plan wants " + requested.get(node));
        }
    }

    private static Instant later(Instant a, Instant b) {
        return b != null && b.isAfter(a) ? b : a;
    }

    /**
     * What the leader is about to write: the plan's wish for each node remembered, with how often it changed (the
     * policy's decisions); while Prometheus is out, whether the budget count the Joulie status keeps is held.
     */
    private void planned(Replica r, Planner.TickPlan plan) {
        if (r.id != leader || plan.plan().targets().isEmpty()) {
            return; // a recheck: no new wish
        }
        plan.plan().targets().forEach((node, p) -> {
            if (requested.put(node, p) != p) {
                decisions.merge(node, 1, Integer::sum);
            }
        });
        if (budget && plan.rules().telemetry() == Telemetry.Status.UNAVAILABLE) {
            JoulieStatus s = server.joulie.getStatus();
            if (s != null && s.budgetHold() != null && java.util.Objects.equals(s.budgetHold().budgetWatts(), BUDGET_WATTS)
                    && plan.rules().budget().filter(b -> "held".equals(b.basis())).isEmpty()) {
                violation("budget: replica " + r.id + " planned without the held budget count " + s.budgetHold().performanceNodes()
                        + " during an outage: " + plan.rules().budget());
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

    final class Server {
        long rv = 1;
        final Map<String, Node> nodes = new TreeMap<>();
        final Map<String, NodePowerProfile> npps = new TreeMap<>();
        final Map<String, Pod> pods = new TreeMap<>();
        Joulie joulie;
        final List<Change> changes = new ArrayList<>();
        /** Index of {@code changes.get(0)} in the whole history (the delivered prefix is dropped). */
        long first;
        final Map<String, Instant> boundAt = new HashMap<>();
        final Map<String, Instant> podEnds = new HashMap<>();
        final Map<String, Instant> lastPerformanceLeft = new HashMap<>();
        /** Per node, its label values over time (what the scheduler's lagging cache may see). */
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

        void put(Kind kind, String key, HasMetadata obj) {
            obj.getMetadata().setResourceVersion(Long.toString(++rv));
            HasMetadata before = map(kind).put(key, obj);
            if (kind == Kind.NODE) {
                labels.computeIfAbsent(key, k -> new TreeMap<>()).put(now(), label(key));
            }
            if (kind == Kind.POD) {
                podMoved((Pod) before, (Pod) obj);
            }
            log(kind, key, obj);
        }

        void remove(Kind kind, String key) {
            HasMetadata before = map(kind).remove(key);
            if (kind == Kind.POD) {
                podMoved((Pod) before, null);
                boundAt.remove(key);
                podEnds.remove(key);
            }
            log(kind, key, null);
        }

        private void podMoved(Pod before, Pod after) {
            if (before != null && before.getSpec().getNodeName() != null && performanceOnly(before)
                    && (after == null || !performanceOnly(after))) {
                lastPerformanceLeft.put(before.getSpec().getNodeName(), now());
                trace(before.getSpec().getNodeName(), "left " + key(before));
            }
        }

        void log(Kind kind, String key, HasMetadata obj) {
            changes.add(new Change(now(), kind, key, obj));
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

    /** One replica's requests, with the faults the run injects, the leadership check a fence must have made, and moves. */
    private final class Writes implements ApiWrites {
        private final int replica;

        Writes(int replica) {
            this.replica = replica;
        }

        /** Throws the injected fault, if any; returns whether a timed-out write still lands. */
        private boolean fault() {
            return fault("");
        }

        private boolean fault(String node) {
            if (leader != replica) {
                violation("fencing: replica " + replica + " wrote without the Lease");
            }
            writes++;
            int r = rnd.nextInt(1000);
            if (r < 100) {
                trace(node, "replica " + replica + ": injected fault " + r);
            }
            if (r < 30) {
                count(Fault.CONFLICT);
                throw new KubernetesClientException("injected conflict", 409, null);
            }
            if (r < 50) {
                count(Fault.TOO_MANY_REQUESTS);
                throw new KubernetesClientException("injected throttling", 429, null);
            }
            if (r < 80) {
                count(Fault.SERVER_ERROR);
                throw new KubernetesClientException("injected server error", 500 + rnd.nextInt(4), null);
            }
            if (r < 90) {
                count(Fault.TIMEOUT_LOST);
                throw new KubernetesClientException("injected timeout", new SocketTimeoutException("timeout"));
            }
            return r < 100;
        }

        private <T> T landed(boolean timedOut, T result) {
            if (timedOut) {
                count(Fault.TIMEOUT_APPLIED);
                throw new KubernetesClientException("injected timeout (the write landed)", new SocketTimeoutException("timeout"));
            }
            // leadership can go in the middle of a tick's writes: the next request of this replica must not be sent
            if (rnd.nextInt(400) == 0) {
                changeLeader(Fault.LEADER_LOST_MID_TICK);
            }
            return result;
        }

        @Override
        public NodePowerProfile create(NodePowerProfile npp) {
            boolean late = fault();
            String name = npp.getMetadata().getName();
            if (server.npps.containsKey(name)) {
                throw new KubernetesClientException("AlreadyExists", 409, null);
            }
            NodePowerProfile stored = copy(npp);
            stored.getMetadata().setGeneration(1L);
            stored.getMetadata().setUid("uid-" + name + "-" + server.rv);
            stored.setStatus(null);
            server.put(Kind.NPP, name, stored);
            return landed(late, copy(stored));
        }

        @Override
        public NodePowerProfile update(NodePowerProfile npp) {
            boolean late = fault(npp.getSpec().nodeName());
            trace(npp.getSpec().nodeName(), "replica " + replica + ": spec " + npp.getSpec().profile());
            NodePowerProfile current = current(npp);
            NodePowerProfile stored = copy(current);
            if (!java.util.Objects.equals(current.getSpec(), npp.getSpec())) {
                stored.getMetadata().setGeneration(current.getMetadata().getGeneration() + 1);
            }
            stored.setSpec(npp.getSpec());
            server.put(Kind.NPP, npp.getMetadata().getName(), stored);
            return landed(late, copy(stored));
        }

        @Override
        public NodePowerProfile updateStatus(NodePowerProfile npp) {
            boolean late = fault(npp.getSpec().nodeName());
            trace(npp.getSpec().nodeName(), "replica " + replica + ": status " + npp.getStatus().state() + " since "
                    + npp.getStatus().since() + " (" + npp.getStatus().reason() + ")");
            NodePowerProfile current = current(npp);
            NodePowerProfile stored = copy(current);
            // the operator's fields; status.applied is the agent's and stays
            NodePowerProfileStatus op = npp.getStatus();
            stored.setStatus(op.withApplied(current.applied()));
            server.put(Kind.NPP, npp.getMetadata().getName(), stored);
            PowerState from = current.getStatus() == null ? null : current.getStatus().state();
            PowerState to = npp.getStatus() == null ? null : npp.getStatus().state();
            if (from != null && to != null && from != to) {
                stateChanged(npp.getSpec().nodeName(), from, to, current);
            }
            return landed(late, copy(stored));
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

        @Override
        public void delete(NodePowerProfile npp) {
            boolean late = fault();
            server.remove(Kind.NPP, npp.getMetadata().getName());
            landed(late, null);
        }

        @Override
        public NodePowerProfile get(String name) {
            NodePowerProfile npp = server.npps.get(name);
            return npp == null ? null : copy(npp);
        }

        @Override
        public void label(Node node, String key, String expected, String value) {
            boolean late = fault(node.getMetadata().getName());
            trace(node.getMetadata().getName(), "replica " + replica + ": label " + value);
            Node current = server.nodes.get(node.getMetadata().getName());
            if (current == null) {
                throw new KubernetesClientException("NotFound", 404, null);
            }
            if (!java.util.Objects.equals(current.getMetadata().getLabels().get(key), expected)) {
                throw new KubernetesClientException("the label " + key + " is not " + expected, 422, null);
            }
            Node changed = new NodeBuilder(current).build();
            changed.getMetadata().setLabels(new HashMap<>(current.getMetadata().getLabels()));
            if (value == null) {
                changed.getMetadata().getLabels().remove(key);
            } else {
                changed.getMetadata().getLabels().put(key, value);
            }
            server.put(Kind.NODE, node.getMetadata().getName(), changed);
            landed(late, null);
        }

        @Override
        public boolean evict(String namespace, String name) {
            boolean late = fault();
            String key = namespace + "/" + name;
            if (!server.pods.containsKey(key)) {
                throw new KubernetesClientException("NotFound", 404, null);
            }
            if (rnd.nextInt(3) == 0) {
                count(Fault.EVICTION_REFUSED);
                return landed(late, false);
            }
            server.remove(Kind.POD, key);
            return landed(late, true);
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

    /** A node's agent and its hardware: applies its NodePowerProfile and reports, unless it is down. */
    private final class Agent {
        final String node;
        final boolean dvfs;
        Profile hwProfile = Profile.PERFORMANCE;
        double hwWatts = 400;
        int throttle;
        long appliedGeneration;
        boolean applied;
        Instant downUntil = Instant.MIN;
        boolean everReported;
        String lastReport;

        Agent(String node, boolean dvfs) {
            this.node = node;
            this.dvfs = dvfs;
        }

        boolean hardwarePerformance() {
            return hwProfile == Profile.PERFORMANCE && throttle == 0;
        }

        void step() {
            if (now().isBefore(downUntil)) {
                return;
            }
            if (rnd.nextInt(800) == 0) {
                downUntil = now().plusSeconds(5 + rnd.nextInt(80));
                lastReport = null; // a new process reports what it finds
                count(Fault.AGENT_CRASH);
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
            var applied = new NodePowerProfileStatus.Applied(generation == 0 ? current.getMetadata().getGeneration() : generation,
                    cpu, null, null);
            String text = name + applied;
            if (text.equals(lastReport)) {
                return; // written only on change, as the agent does
            }
            lastReport = text;
            NodePowerProfile stored = copy(current);
            NodePowerProfileStatus was = current.getStatus();
            stored.setStatus(was == null ? NodePowerProfileStatus.ofApplied(applied) : was.withApplied(applied));
            server.put(Kind.NPP, name, stored);
            everReported = true;
        }
    }

    /** Prometheus as the budget rule reads it: each node's draw, by the cap its hardware is at; out during outages. */
    private Telemetry telemetry() {
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

    /** One operator process: the real loop, watchdog, planner, actuation and ledger over a view of its own. */
    private final class Replica {
        final int id;
        final View view;
        final PlannerLoop loop;
        final ContractWatch watch;
        final PlannerStatus status = new PlannerStatus();
        final List<Runnable> openings = new ArrayList<>();

        Replica(int id) {
            this.id = id;
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            PlannerMetrics metrics = new PlannerMetrics(registry);
            EventSink events = new EventSink() {
                @Override
                public void node(String node, EventReason reason, String message) {
                }

                @Override
                public void installation(EventReason reason, String message) {
                }

                @Override
                public void operator(EventReason reason, String message) {
                }
            };
            OperatorSettings settings = new OperatorSettings(new TestConfig()
                    .with("RECONCILE_INTERVAL", "10s").with("SETTLE_TIME", "2s").with("CAP_CONFIRMATION_TIMEOUT", "30s")
                    .with("DOWNGRADE_TIMEOUT", "60s").with("DOWNGRADE_ESCALATION", escalation.name().toLowerCase(java.util.Locale.ROOT))
                    .with("MAX_TRANSITIONS_PER_TICK", "4").with("MAX_EVICTIONS_PER_TICK", "2"));
            view = new View(this);
            TelemetrySource telemetry = new TelemetrySource(registry) {
                @Override
                public Telemetry read(Duration limit) {
                    return budget ? ContractFaultInjection.this.telemetry() : Telemetry.DISABLED;
                }
            };
            InformerContextProvider context = new InformerContextProvider(view, settings, clock, telemetry);
            KubernetesActuator actuation = new KubernetesActuator(KubernetesActuator.fenced(new Writes(id), () -> leader == id),
                    view, metrics);
            TickGate gate = new TickGate(() -> leader == id, view::unsynced, openings::add);
            PolicyReloader policy = new PolicyReloader(new Planner(settings.planner()), Optional.empty(),
                    new EffectivePolicy(settings.planner()), view::installation, config -> { }, events);
            PlanExecutor executor = new PlanExecutor(actuation, name -> {
                NodePowerProfile p = view.profile(name);
                return p == null || p.getSpec() == null ? null : p.getSpec().nodeName();
            }, events, metrics, () -> leader == id, 1, clock) {
                @Override
                public Result execute(Planner.TickPlan plan, io.joulie.planner.PlannerSettings s, Instant deadline) {
                    planned(Replica.this, plan);
                    return super.execute(plan, s, deadline);
                }
            };
            TickRecorder recorder = new TickRecorder(metrics, new RuleMetrics(registry), status, events, clock);
            ContractLedger ledger = new ContractLedger(metrics, events, clock, view::performancePodSeen);
            loop = new PlannerLoop(gate, policy, context, executor, recorder, ledger);
            watch = new ContractWatch(loop::recheck, clock);
            view.onNodeEvent(watch::report);
            loop.wakeupsTo(watch::at);
            view.list(); // a new process lists everything
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
            super(null, clock);
            this.replica = replica;
            this.sightings = new PodSightings(clock, n -> performance.getOrDefault(n, new TreeSet<>()), nodes::containsKey);
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
            server.trim();
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
                    NodePowerProfile npp = (NodePowerProfile) c.after();
                    if (npp != null && npp.getSpec() != null && !java.util.Objects.equals(applied(before), applied(npp))) {
                        event(npp.getSpec().nodeName()); // the agent's answer changed
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
                    if (before != null && performanceOnly(before)) {
                        performance.getOrDefault(node(before), new TreeSet<>()).remove(c.key());
                    }
                    if (after != null && performanceOnly(after)) {
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

        /** No NodeHardware here: a node is served by an agent once it answered. */
        @Override
        public AgentReport agentReport(String node, NodePowerProfile npp) {
            NodePowerProfileStatus.Applied applied = applied(npp);
            return new AgentReport(applied, applied != null);
        }

        private static NodePowerProfileStatus.Applied applied(NodePowerProfile npp) {
            return npp == null ? null : npp.applied();
        }
    }
}
