package io.joulie.operator.runtime;

import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.operator.cluster.ClusterView;
import io.joulie.operator.cluster.EventReason;
import io.joulie.operator.cluster.EventSink;
import io.joulie.operator.cluster.KubernetesActuator;
import io.joulie.operator.cluster.LeadershipLost;
import io.joulie.operator.metrics.ErrorKind;
import io.joulie.operator.metrics.PlannerMetrics;
import io.joulie.planner.ActuationAdapter;
import io.joulie.planner.ActuationAdapter.EvictionResult;
import io.joulie.planner.NodeAssignment;
import io.joulie.planner.Outcome;
import io.joulie.planner.Planner;
import io.joulie.planner.PlannerSettings;
import io.joulie.planner.RateBudget;
import io.joulie.planner.Transition;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * Carries out a tick's plan through the {@link ActuationAdapter}: raises to performance first (and every node
 * heading for performance: its label may follow the agent's confirmation), then every other node, then the nodes that
 * left management (decision 38), up to {@link TickWriter#PARALLELISM} at once, and stops writing once the Lease is lost.
 * Evicts the pods of an {@code evicted} verdict first, at most {@code MAX_EVICTIONS_PER_TICK} per reconcile interval
 * (a {@link RateBudget}: extra ticks share it), and
 * remembers which evictions were refused, so that a PodDisruptionBudget that keeps refusing yields one Warning per
 * change, not one per tick. One node's failure is logged, counted and skipped; the others go on. A node whose writes
 * keep failing is backed off: after the n-th failure in a row it is not written again for {@link #BACKOFF_BASE}
 * × 2^(n-1), at most {@link #BACKOFF_MAX}. The writes the contract waits for are always tried, and tried again after
 * {@link #BACKOFF_BASE} when they fail: a rescue (a performance-only pod under the eco cap), and a forced commit (whose
 * eco cap may be written already while the record of the pods it leaves there is not).
 */
@ApplicationScoped
public class PlanExecutor {
    private static final Logger LOG = Logger.getLogger(PlanExecutor.class);

    private final ActuationAdapter actuation;
    private final Function<String, String> profileHolder;
    private final EventSink events;
    private final PlannerMetrics metrics;
    private final BooleanSupplier leading;
    private final int parallelism;
    private final Clock clock;
    /** Pods whose eviction was last refused, per node: an EvictionRefused Event is recorded when this changes. */
    private final Map<String, List<String>> refusedEvictions = new ConcurrentHashMap<>();
    /** Nodes whose last writes failed: how many times in a row, and not before when they are written again. */
    private final Map<String, Backoff> backoff = new ConcurrentHashMap<>();
    /** MAX_EVICTIONS_PER_TICK per reconcile interval, whatever the number of ticks in it (decision 154). */
    private final RateBudget evictionBudget = new RateBudget();

    /** The first wait after a failed write of a node; it doubles with every further failure in a row. */
    static final Duration BACKOFF_BASE = Duration.ofSeconds(1);
    /**
     * When a node whose decision was made on a view that has moved on is looked at again: soon, and not at once (the
     * cache that decided it may lag the API server by a few milliseconds still).
     */
    static final Duration STALE_RETRY = Duration.ofMillis(250);
    /** The longest wait between attempts at a node whose writes keep failing. */
    static final Duration BACKOFF_MAX = Duration.ofMinutes(5);

    private record Backoff(int failures, Instant retryAt) {
    }

    /**
     * How many node writes failed, whether leadership was lost before all were started, how many were not started because
     * the tick's deadline had passed, and when the nodes backed off (failed now, or skipped), decided on a view that moved
     * on, or not started, may be looked at again.
     */
    public record Result(int failures, boolean interrupted, int unwritten, Map<String, Instant> retries) {
        public Result {
            retries = Map.copyOf(retries);
        }

        public Result(int failures, boolean interrupted) {
            this(failures, interrupted, 0, Map.of());
        }
    }

    @Inject
    public PlanExecutor(ActuationAdapter actuation, ClusterView view, EventSink events, PlannerMetrics metrics,
                        TickGate gate, Clock clock) {
        this(actuation, name -> holder(view.profile(name)), events, metrics, gate::leading, TickWriter.PARALLELISM, clock);
    }

    /**
     * @param profileHolder the node a NodePowerProfile (by name) names in {@code spec.nodeName}, or null
     * @param leading       whether this replica still holds the Lease
     */
    PlanExecutor(ActuationAdapter actuation, Function<String, String> profileHolder, EventSink events,
                 PlannerMetrics metrics, BooleanSupplier leading, int parallelism, Clock clock) {
        this.actuation = actuation;
        this.profileHolder = profileHolder;
        this.events = events;
        this.metrics = metrics;
        this.leading = leading;
        this.parallelism = parallelism;
        this.clock = clock;
    }

    private static String holder(NodePowerProfile existing) {
        return existing == null || existing.getSpec() == null ? null : existing.getSpec().nodeName();
    }

    /** Writes a tick's plan. */
    public Result execute(Planner.TickPlan plan, PlannerSettings settings) {
        return execute(plan, settings, Instant.MAX);
    }

    /** Writes a tick's plan, starting no node's write after {@code deadline} (by this executor's clock). */
    public Result execute(Planner.TickPlan plan, PlannerSettings settings, Instant deadline) {
        return run(plan.transitions(), plan, settings, true, deadline);
    }

    /** The time by this executor's clock. */
    public Instant now() {
        return clock.instant();
    }

    /**
     * Writes what a recheck between ticks found for the nodes a watch reported on: rescues, drains committing eco (also
     * forced, once the timeout has passed), raises, labels and cap reports. A verdict only a tick acts on (a drain still
     * blocked, evictions, a deferral) is left to the next tick, and nothing is forgotten about the other nodes.
     */
    public Result recheck(Planner.TickPlan plan, PlannerSettings settings) {
        List<Transition> acted = plan.transitions().stream().filter(t -> switch (t.outcome()) {
            case STEADY, COMPLETED, RESCUED, FORCED -> true;
            default -> false;
        }).toList();
        return run(acted, plan, settings, false, Instant.MAX);
    }

    private Result run(List<Transition> transitions, Planner.TickPlan plan, PlannerSettings settings, boolean whole,
                       Instant deadline) {
        Instant now = clock.instant();
        Set<String> started = ConcurrentHashMap.newKeySet();
        List<BooleanSupplier> raises = new ArrayList<>();
        List<BooleanSupplier> others = new ArrayList<>();
        Map<String, String> owners = profileOwners(transitions);
        int evictable = evictionBudget.available(now, settings.maxEvictionsPerTick(), settings.reconcileInterval());
        AtomicInteger evictions = new AtomicInteger(evictable);
        Map<String, Instant> retries = new ConcurrentHashMap<>();
        for (Transition t : transitions) {
            Backoff b = backoff.get(t.node());
            if (b != null && now.isBefore(b.retryAt()) && !urgent(t)) {
                retries.put(t.node(), b.retryAt());
                LOG.debugf("%s: %d writes failed in a row; not written before %s", t.node(), b.failures(), b.retryAt());
                continue;
            }
            String owner = owners.get(JoulieApi.nodePowerProfileName(t.node()));
            BooleanSupplier write = owner.equals(t.node())
                    ? () -> {
                        started.add(t.node());
                        return written(t, apply(t, plan.assignment(t, settings), evictions), now, retries);
                    }
                    : () -> collides(t, owner);
            (t.raises() || t.to() == PowerState.ActivePerformance ? raises : others).add(write);
        }
        List<BooleanSupplier> releases = plan.released().stream().<BooleanSupplier>map(node -> () -> release(node)).toList();
        TickWriter.Result written = TickWriter.run(List.of(raises, others, releases), leading,
                () -> clock.instant().isBefore(deadline), parallelism);
        evictionBudget.spend(evictable - Math.max(0, evictions.get()), now, settings.maxEvictionsPerTick(),
                settings.reconcileInterval());
        if (written.unstarted() > 0) {
            // past the tick's deadline: the watchdog looks at them at once (rescues, commits, labels); the rest next tick
            Instant at = clock.instant();
            transitions.stream().map(Transition::node).filter(n -> !started.contains(n) && !retries.containsKey(n))
                    .forEach(n -> retries.put(n, at));
        }
        if (!written.interrupted() && whole) {
            // nodes gone, cordoned or no longer managed: their memory goes too
            List<String> planned = transitions.stream().map(Transition::node).toList();
            refusedEvictions.keySet().retainAll(planned);
            backoff.keySet().retainAll(planned);
        }
        metrics.backingOff(backoff.size());
        return new Result(written.failures(), written.interrupted(), written.unstarted(), retries);
    }

    /**
     * Records how a node's write went: a decision made on a view that has moved on is looked at again at once (not a
     * failure of the node); otherwise {@link #backedOff}.
     */
    private boolean written(Transition t, Written w, Instant now, Map<String, Instant> retries) {
        if (w == Written.STALE) {
            retries.put(t.node(), clock.instant().plus(STALE_RETRY));
            return true;
        }
        return backedOff(t.node(), w == Written.OK, urgent(t), now, retries);
    }

    /** How a node's write went. */
    private enum Written {
        OK, FAILED,
        /** Not written: it was decided on a view of the node that has moved on since. */
        STALE
    }

    /** A write the contract waits for: never held back by the node's backoff. */
    private static boolean urgent(Transition t) {
        return t.outcome() == Outcome.RESCUED || t.outcome() == Outcome.FORCED;
    }

    /**
     * Records the outcome of a node's write for its backoff (an urgent one is tried again after {@link #BACKOFF_BASE},
     * whatever the backoff); returns {@code succeeded}.
     */
    private boolean backedOff(String node, boolean succeeded, boolean urgent, Instant now, Map<String, Instant> retries) {
        if (succeeded) {
            backoff.remove(node);
            return true;
        }
        Backoff b = backoff.merge(node, new Backoff(1, now.plus(BACKOFF_BASE)), (was, one) -> {
            int n = was.failures() + 1;
            Duration wait = BACKOFF_BASE.multipliedBy(1L << Math.min(n - 1, 20));
            return new Backoff(n, now.plus(wait.compareTo(BACKOFF_MAX) > 0 ? BACKOFF_MAX : wait));
        });
        retries.put(node, urgent ? now.plus(BACKOFF_BASE) : b.retryAt());
        return false;
    }

    /**
     * Two node names can normalise to one NodePowerProfile name. Which node keeps the object is settled before any
     * write, so that the two do not race for it: the node the existing profile names, else the first in the plan.
     */
    private Map<String, String> profileOwners(List<Transition> transitions) {
        Map<String, String> owners = new HashMap<>();
        Set<String> planned = new HashSet<>();
        for (Transition t : transitions) {
            owners.putIfAbsent(JoulieApi.nodePowerProfileName(t.node()), t.node());
            planned.add(t.node());
        }
        owners.replaceAll((name, first) -> {
            String holder = profileHolder.apply(name);
            return holder != null && planned.contains(holder) ? holder : first;
        });
        return owners;
    }

    private boolean collides(Transition t, String owner) {
        metrics.error(ErrorKind.NODE);
        LOG.warnf("Node %s: not managed; its NodePowerProfile name %s is that of node %s (node names collide after"
                + " normalisation)", t.node(), JoulieApi.nodePowerProfileName(t.node()), owner);
        return false;
    }

    private Written apply(Transition t, NodeAssignment assignment, AtomicInteger evictions) {
        try {
            boolean evictionsFailed = t.outcome() == Outcome.EVICTED && !evict(t, evictions);
            if (t.outcome() != Outcome.EVICTED) {
                refusedEvictions.remove(t.node());
            }
            actuation.apply(assignment);
            if (t.outcome() != Outcome.STEADY) {
                metrics.transition(t.from(), t.changed() ? t.to() : t.requested(), t.outcome());
            }
            if (t.changed()) {
                LOG.infof("%s: %s -> %s (%s)", t.node(), t.from(), t.to(), t.reason());
                events.node(t.node(), t.outcome() == Outcome.FORCED ? EventReason.DowngradeForced : EventReason.PowerStateChanged,
                        "%s -> %s: %s".formatted(t.from(), t.to(), t.reason()));
            }
            return evictionsFailed ? Written.FAILED : Written.OK;
        } catch (LeadershipLost e) {
            throw e;
        } catch (KubernetesActuator.StaleDecision e) {
            LOG.debugf("Node %s: %s; decided again on a fresh view", t.node(), e.getMessage());
            return Written.STALE;
        } catch (RuntimeException e) {
            metrics.error(ErrorKind.NODE);
            LOG.warnf("Node %s: could not apply %s (%s); it keeps its last written state and is retried next tick",
                    t.node(), t.to(), e.getMessage());
            return Written.FAILED;
        }
    }

    /**
     * Evicts the transition's pods while the eviction budget lasts (the others wait for a later tick); returns
     * false when an eviction call failed (not merely refused).
     */
    private boolean evict(Transition t, AtomicInteger budget) {
        List<String> evicted = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        boolean failed = false;
        for (String pod : t.evict()) {
            if (budget.getAndDecrement() <= 0) {
                metrics.eviction(EvictionResult.DEFERRED);
                continue;
            }
            LOG.debugf("Evicting %s from %s", pod, t.node());
            EvictionResult r;
            try {
                r = actuation.evict(pod);
            } catch (LeadershipLost e) {
                throw e;
            } catch (RuntimeException e) {
                LOG.warnf("Evicting %s from %s failed: %s", pod, t.node(), e.getMessage());
                r = EvictionResult.FAILED;
            }
            metrics.eviction(r);
            switch (r) {
                case EVICTED -> evicted.add(pod);
                case REFUSED -> refused.add(pod);
                case FAILED -> {
                    refused.add(pod);
                    failed = true;
                }
                case GONE, DEFERRED -> { }
            }
        }
        // The Events are on a cluster-scoped object: they count the pods; the operator's log names them (decision 158).
        if (!evicted.isEmpty()) {
            LOG.infof("%s: evicted %s to complete the downgrade", t.node(), String.join(", ", evicted));
            events.node(t.node(), EventReason.PodsEvicted, "Evicted %s to complete the downgrade (named in the operator's log)"
                    .formatted(pods(evicted.size())));
        }
        // One Warning per change of the refused set, not one per tick while a budget keeps refusing.
        if (!refused.isEmpty() && !refused.equals(refusedEvictions.put(t.node(), List.copyOf(refused)))) {
            LOG.warnf("%s: eviction refused or failed for %s (retried every tick)", t.node(), String.join(", ", refused));
            events.node(t.node(), EventReason.EvictionRefused, "Eviction refused or failed for %s (retried every tick; named "
                    .formatted(pods(refused.size())) + "in the operator's log)");
        }
        if (refused.isEmpty()) {
            refusedEvictions.remove(t.node());
        }
        return !failed;
    }

    private static String pods(int n) {
        return n + (n == 1 ? " performance-only pod" : " performance-only pods");
    }

    private boolean release(String node) {
        try {
            if (actuation.release(node)) {
                LOG.infof("%s left management: NodePowerProfile and label removed", node);
            }
            return true;
        } catch (RuntimeException e) {
            metrics.error(ErrorKind.RELEASE);
            LOG.warnf("Node %s left management but could not be released: %s", node, e.getMessage());
            return false;
        }
    }
}
