package io.joulie.operator.runtime;

import io.joulie.operator.cluster.ClusterView;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The contract watchdog: acts on single nodes between ticks, at once rather than at the next tick. The watches report a
 * node when a performance-only Pod arrives on it or leaves, when its agent reports, when its power-profile label changes
 * ({@link ClusterView#onNodeEvent}); ticks and rechecks say when to look at a node again (a drain's settle time ending,
 * a wait for the agent becoming overdue, a backed-off node's next attempt). Reported nodes are collected and handed to
 * {@link PlannerLoop#recheck} on one thread of its own; reports that arrive while a recheck runs are folded into the
 * next one.
 */
@ApplicationScoped
public class ContractWatch {
    /** Slack past a due moment, so that a recheck never runs a hair before what it waits for. */
    static final Duration LATE = Duration.ofMillis(20);
    /** When a recheck cannot run yet (a watch resyncing, no tick in this term yet), its nodes are looked at again then. */
    static final Duration RETRY = Duration.ofSeconds(1);

    private final Function<Set<String>, PlannerLoop.Recheck> recheck;
    private final Clock clock;
    private final Set<String> reported = new TreeSet<>();
    private final Map<String, Instant> due = new HashMap<>();
    private ScheduledExecutorService worker;
    private boolean queued;
    private boolean held;

    @Inject
    public ContractWatch(PlannerLoop loop, ClusterView view, Clock clock) {
        this(loop::recheck, clock);
        view.onNodeEvent(this::report);
        loop.wakeupsTo(this::at);
    }

    /** @param recheck runs the guard for these nodes */
    ContractWatch(Function<Set<String>, PlannerLoop.Recheck> recheck, Clock clock) {
        this.recheck = recheck;
        this.clock = clock;
    }

    void start(@Observes StartupEvent ev) {
        start();
    }

    synchronized void start() {
        if (worker == null) {
            worker = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("joulie-contract").factory());
        }
    }

    synchronized void stop(@Observes ShutdownEvent ev) {
        if (worker != null) {
            worker.shutdownNow();
            worker = null;
        }
    }

    /** A watch reported something about {@code node}: look at it now. */
    public synchronized void report(String node) {
        reported.add(node);
        submit(Duration.ZERO);
    }

    /** Look at these nodes again at these moments (the earliest wins for a node already waiting). */
    public synchronized void at(Map<String, Instant> moments) {
        Instant now = clock.instant();
        moments.forEach((node, when) -> {
            due.merge(node, when, (a, b) -> a.isBefore(b) ? a : b);
            Duration in = Duration.between(now, when).plus(LATE);
            submit(in.isNegative() ? Duration.ZERO : in);
        });
    }

    /**
     * While held, reports and due moments are collected but nothing runs on its own; {@link #runDue()} still runs them
     * (tests that drive the ticks themselves decide when the watchdog acts too).
     */
    public synchronized void hold(boolean hold) {
        held = hold;
        if (!hold) {
            submit(Duration.ZERO);
        }
    }

    private void submit(Duration delay) {
        if (worker == null || held) {
            return;
        }
        if (delay.isZero()) {
            if (!queued) {
                queued = true;
                worker.execute(this::runDue);
            }
        } else {
            worker.schedule(this::runDue, delay.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Rechecks every reported node and every node whose moment has come (by this watch's clock), in one recheck. When it
     * cannot run yet, the nodes are looked at again {@link #RETRY} later; on a replica that does not lead they are
     * dropped (the leader's first tick looks at every node).
     *
     * @return the nodes rechecked (empty when there were none, or the recheck did not run)
     */
    public Set<String> runDue() {
        Set<String> nodes = take();
        if (nodes.isEmpty()) {
            return nodes;
        }
        PlannerLoop.Recheck r = recheck.apply(nodes);
        if (r == PlannerLoop.Recheck.LATER) {
            Instant retry = clock.instant().plus(RETRY);
            Map<String, Instant> again = new HashMap<>();
            nodes.forEach(n -> again.put(n, retry));
            at(again);
        }
        return r == PlannerLoop.Recheck.RAN ? nodes : Set.of();
    }

    private synchronized Set<String> take() {
        queued = false;
        Instant now = clock.instant();
        Set<String> nodes = new TreeSet<>(reported);
        reported.clear();
        due.entrySet().removeIf(e -> {
            if (e.getValue().isAfter(now)) {
                return false;
            }
            nodes.add(e.getKey());
            return true;
        });
        return nodes;
    }

    /** The moments still ahead, by node (tests). */
    synchronized Map<String, Instant> pending() {
        return Map.copyOf(due);
    }
}
