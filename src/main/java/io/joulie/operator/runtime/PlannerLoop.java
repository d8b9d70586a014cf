package io.joulie.operator.runtime;

import io.joulie.api.text.Durations;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.operator.metrics.EnergyMetrics;
import io.joulie.operator.metrics.TickResult;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.ContextProvider;
import io.joulie.planner.ManagedNode;
import io.joulie.planner.Outcome;
import io.joulie.planner.Planner;
import io.joulie.planner.PlannerSettings;
import io.joulie.planner.Transition;
import io.micrometer.core.instrument.Timer;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.Scheduler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The per-interval tick: {@link TickGate} (leader, watches synced) → {@link PolicyReloader} (the planner in force) →
 * {@link ContextProvider#snapshot(Duration)} → {@link Planner#plan} → {@link PlanExecutor} (the writes) → {@link ContractLedger}
 * and {@link TickRecorder} (metrics, status, Events). A Quarkus scheduler job runs it every {@code RECONCILE_INTERVAL}
 * in force, skipping a run while the previous one is still going; a tick starts no write after its deadline (the
 * interval: what it did not write, the next tick or a recheck does). Between ticks, and while a tick is still reading
 * telemetry or writing, {@link #recheck} runs the guard alone for the nodes a watch reported on ({@link ContractWatch}):
 * rescues never wait for a tick. Ticks run one at a time; a recheck shares no lock with them. A tick's decision and a
 * recheck's about the same node cannot undo each other: each write carries what it was decided on (the
 * NodePowerProfile's resourceVersion, the label's value), so the later of two stale decisions is refused, locally or by
 * the API server ({@link io.joulie.operator.cluster.KubernetesActuator}).
 */
@ApplicationScoped
public class PlannerLoop {
    private static final Logger LOG = Logger.getLogger(PlannerLoop.class);
    /** The scheduler job's identity (tests pause it to drive the tick themselves). */
    public static final String JOB = "joulie-planner";
    /** The most a tick spends reading telemetry, whatever its interval. */
    static final Duration TELEMETRY_BUDGET_MAX = Duration.ofMinutes(2);

    private Scheduler scheduler;
    private final TickGate gate;
    private final PolicyReloader policy;
    private final ContextProvider context;
    private final PlanExecutor executor;
    private final TickRecorder recorder;
    private final EnergyMetrics energy;
    private final ContractLedger ledger;
    private Duration scheduledInterval;
    private final AtomicBoolean tickRequested = new AtomicBoolean();
    /** Held through a whole tick: ticks run one at a time (a recheck does not take it). */
    private final ReentrantLock ticking = new ReentrantLock();

    /**
     * What a recheck carries on from: the term of the tick that planned last, the policy it planned with (named in the
     * reasons of a recheck's moves) and its targets.
     */
    private record LastPlan(long term, String policyName, Map<String, Profile> targets) {
    }

    private volatile LastPlan lastPlan = new LastPlan(-1, null, Map.of());
    /**
     * Counts the openings of the gate (each time this replica becomes the leader): a recheck acts only on the plan of a
     * tick of the same term, never on one made before another leader may have planned differently.
     */
    private final java.util.concurrent.atomic.AtomicLong term = new java.util.concurrent.atomic.AtomicLong();
    private volatile Consumer<Map<String, Instant>> wakeups = due -> { };

    @Inject
    public PlannerLoop(Scheduler scheduler, TickGate gate, PolicyReloader policy, ContextProvider context,
                       PlanExecutor executor, TickRecorder recorder, ContractLedger ledger, EnergyMetrics energy) {
        this(gate, policy, context, executor, recorder, ledger, energy);
        this.scheduler = scheduler;
    }

    /** A loop without a scheduler: its caller runs the ticks (the fault-injection tests). */
    PlannerLoop(TickGate gate, PolicyReloader policy, ContextProvider context, PlanExecutor executor, TickRecorder recorder,
                ContractLedger ledger, EnergyMetrics energy) {
        this.energy = energy;
        this.gate = gate;
        this.policy = policy;
        this.context = context;
        this.executor = executor;
        this.recorder = recorder;
        this.ledger = ledger;
        gate.onOpening(term::incrementAndGet);
    }

    /**
     * Where the moments to look at single nodes again go after each tick and recheck, by node: a drain's settle time
     * ending, a wait for the agent becoming overdue, a backed-off node's next attempt ({@link ContractWatch}).
     */
    public void wakeupsTo(Consumer<Map<String, Instant>> listener) {
        wakeups = listener;
    }

    void schedule(@Observes StartupEvent ev) {
        schedule(policy.current().settings().reconcileInterval());
        LOG.infof("Planning every %s with %s", Durations.format(scheduledInterval), policy.current().policy().name());
        // Plan as soon as planning is possible rather than up to an interval later: when the watches have synced and
        // when this replica becomes the leader (a new leader carries on at once after a failover).
        gate.onOpening(this::tickSoon);
    }

    /**
     * Runs a tick now, outside the schedule, on a thread of its own (the callers are watch and election threads).
     * Requests made before that tick has started are folded into it (it reads the state as it is when it starts); a
     * tick in progress is waited for.
     */
    void tickSoon() {
        if (tickRequested.compareAndSet(false, true)) {
            Thread.ofPlatform().daemon().name("joulie-planner-now").start(() -> {
                tickRequested.set(false);
                tick();
            });
        }
    }

    private synchronized void schedule(Duration interval) {
        if (scheduler == null) {
            scheduledInterval = interval;
            return;
        }
        boolean paused = false;
        if (scheduledInterval != null) {
            paused = scheduler.isPaused(JOB);
            scheduler.unscheduleJob(JOB);
        }
        scheduledInterval = interval;
        scheduler.newJob(JOB)
                .setInterval(interval.toString())
                .setConcurrentExecution(Scheduled.ConcurrentExecution.SKIP)
                .setTask(execution -> tick())
                .schedule();
        if (paused) {
            scheduler.pause(JOB); // a paused job stays paused at its new interval
        }
    }

    /** The settings the planner currently plans with. */
    public PlannerSettings plannerSettings() {
        return policy.current().settings();
    }

    /** Runs one tick; returns whether it planned (leader, synced) and completed. */
    public boolean tick() {
        ticking.lock();
        try {
            return tickAlone();
        } finally {
            ticking.unlock();
        }
    }

    private boolean tickAlone() {
        Optional<TickResult> closed = gate.closed();
        if (closed.isPresent()) {
            recorder.skipped(closed.get());
            return false;
        }
        long thisTerm = term.get();
        Planner planner = policy.reload(thisTerm != lastPlan.term());
        if (!planner.settings().reconcileInterval().equals(scheduledInterval)) {
            schedule(planner.settings().reconcileInterval());
            LOG.infof("Planning every %s", Durations.format(scheduledInterval));
        }
        Timer.Sample sample = recorder.start();
        Instant deadline = executor.now().plus(planner.settings().reconcileInterval());
        try {
            ClusterContext ctx = context.snapshot(telemetryBudget(planner.settings().reconcileInterval()));
            Planner.TickPlan plan = planner.plan(ctx);
            LOG.debugf("Tick: %d managed nodes, %s", ctx.nodes().size(), plan.plan().summary());
            PlanExecutor.Result written = executor.execute(plan, planner.settings(), deadline);
            if (written.interrupted()) {
                LOG.info("Leadership lost during the tick; leaving the rest to the new leader");
                recorder.skipped(TickResult.INTERRUPTED);
                return false;
            }
            lastPlan = new LastPlan(thisTerm, plan.plan().policyName(), plan.plan().targets());
            Map<String, Instant> due = ledger.observe(ctx, plan, planner.settings(), true);
            recorder.completed(ctx, plan, written.failures(), PolicyReloader.held(planner), ledger.overdue());
            energy.record(ctx, planner.settings().reconcileInterval());
            if (written.unwritten() > 0) {
                LOG.warnf("Tick deadline (%s) passed with %d node writes not started; the next tick or a recheck makes them",
                        Durations.format(planner.settings().reconcileInterval()), written.unwritten());
            }
            wake(planner, ctx, plan, written, due);
            return true;
        } catch (RuntimeException e) {
            recorder.failed(e);
            return false;
        } finally {
            recorder.stop(sample);
        }
    }

    /**
     * The longest a tick reads telemetry: half its interval (a slow Prometheus leaves the tick the other half to write),
     * at most {@link #TELEMETRY_BUDGET_MAX}.
     */
    static Duration telemetryBudget(Duration interval) {
        Duration half = interval.dividedBy(2);
        return half.compareTo(TELEMETRY_BUDGET_MAX) > 0 ? TELEMETRY_BUDGET_MAX : half;
    }

    /** Whether a recheck ran, and if not, whether its nodes are worth another look soon. */
    public enum Recheck {
        /** It ran (its writes may have failed: those nodes come back as backoff moments). */
        RAN,
        /** This replica does not lead: the leader's first tick looks at every node. */
        NOT_LEADING,
        /** Not now: a watch it needs is not synced, or it failed. */
        LATER
    }

    /**
     * The guard's step between ticks for {@code nodes} (what a watch reported on, or what is due): a rescue of a node
     * running a performance-only pod under the eco cap, a drain committing eco once its settle time has passed, the
     * performance label once the agent confirmed the cap. Only the leader acts, once the Node, Pod and NodePowerProfile
     * watches are synced; before a tick has planned in its current term (a new leader), only rescues: commits and labels
     * wait for that tick. The policy and the rules are not consulted.
     */
    public Recheck recheck(Collection<String> nodes) {
        Optional<TickResult> closed = gate.closedForRecheck();
        if (closed.filter(TickResult.STANDBY::equals).isPresent()) {
            return Recheck.NOT_LEADING;
        }
        if (closed.isPresent()) {
            return Recheck.LATER;
        }
        if (nodes.isEmpty()) {
            return Recheck.RAN;
        }
        LastPlan last = lastPlan;
        boolean planned = last.term() == term.get();
        Planner planner = policy.current();
        try {
            ClusterContext ctx = context.snapshotOf(nodes);
            Planner.TickPlan plan = planner.recheck(ctx, planned ? last.policyName() : policy.current().policy().name(),
                    planned ? last.targets() : Map.of());
            if (!planned) {
                // No tick has planned in this term yet (a new leader whose first tick is still reading or writing): only
                // rescues go now; commits and labels wait for that tick, which looks at every node.
                plan = rescuesOnly(plan);
                ctx = only(ctx, plan);
            }
            PlanExecutor.Result written = executor.recheck(plan, planner.settings());
            if (written.interrupted()) {
                return Recheck.NOT_LEADING;
            }
            Map<String, Instant> due = ledger.observe(ctx, plan, planner.settings(), false);
            wake(planner, ctx, plan, written, due);
            return Recheck.RAN;
        } catch (RuntimeException e) {
            LOG.warnf(e, "Recheck of %s failed; tried again", nodes);
            return Recheck.LATER;
        }
    }

    private static Planner.TickPlan rescuesOnly(Planner.TickPlan p) {
        List<Transition> rescues = p.transitions().stream().filter(t -> t.outcome() == Outcome.RESCUED).toList();
        return new Planner.TickPlan(p.plan(), rescues, List.of(), p.rules(), p.caps(), p.power(), p.basis());
    }

    /** The context's nodes that have a verdict in {@code plan}. */
    private static ClusterContext only(ClusterContext ctx, Planner.TickPlan plan) {
        java.util.Set<String> named = new java.util.HashSet<>();
        plan.transitions().forEach(t -> named.add(t.node()));
        return new ClusterContext(ctx.now(), ctx.nodes().stream().filter(n -> named.contains(n.name())).toList(),
                ctx.clusterPerformancePods(), List.of(), List.of(), ctx.telemetry(), ctx.demand(), ctx.gpuDemand());
    }

    /** Hands on when to look at which node again: settle times, overdue waits, backoffs. */
    private void wake(Planner planner, ClusterContext ctx, Planner.TickPlan plan, PlanExecutor.Result written,
                      Map<String, Instant> due) {
        Map<String, Instant> at = new HashMap<>(due);
        Map<String, ManagedNode> nodes = new HashMap<>();
        ctx.nodes().forEach(n -> nodes.put(n.name(), n));
        // when the transition budget has room for one more (null: never), for the commits it deferred
        Instant room = planner.transitionRoomAt(ctx.now());
        for (Transition t : plan.transitions()) {
            ManagedNode n = nodes.get(t.node());
            // a drain the plan still wants eco (a raise a recheck left to the next tick has no commit to wait for)
            if (t.to() == PowerState.DrainingPerformance && t.requested() == PowerState.ActiveEco && n != null
                    && !n.hasPerformancePods()) {
                // The guard's own moment: a drain this replica has seen counts from its sighting when that is later than
                // the writer's since (ManagedNode#stateSinceHere). Woken at the writer's moment instead, the recheck
                // found the drain still settling, was woken again at once, and spun until the sighting's settle passed.
                Instant commit = n.state() == PowerState.DrainingPerformance
                        ? planner.guard().commitAt(n)
                        : planner.guard().commitAt(t.since(), n.lastPerformancePod());
                if (t.outcome() == Outcome.DEFERRED) {
                    // Its commit is due but the transition budget is spent: looked at again when the budget has room
                    // (it refills continuously), else every recheck found it deferred and was woken again at once.
                    if (room == null) {
                        continue; // no budget at all: the ticks look at every node
                    }
                    commit = commit.isAfter(room) ? commit : room;
                }
                at.merge(t.node(), commit, PlannerLoop::earlier);
            }
        }
        written.retries().forEach((node, when) -> at.merge(node, when, PlannerLoop::earlier));
        if (!at.isEmpty()) {
            wakeups.accept(at);
        }
    }

    private static Instant earlier(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }

    /** When the last tick completed, if one has. */
    public Instant lastCompleted() {
        return recorder.lastCompleted();
    }
}
