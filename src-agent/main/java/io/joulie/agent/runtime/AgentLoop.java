package io.joulie.agent.runtime;

import io.joulie.agent.k8s.NodeLabeller;
import io.joulie.agent.metrics.AgentMetrics;
import io.joulie.agent.metrics.ErrorKind;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/**
 * The agent's control loop: one worker takes the {@link WorkQueue}'s tasks as they come due, so host and backend
 * state need no locks.
 * <ul>
 * <li>a NodePowerProfile event queues its node, a TelemetryProfile or Node event every node to visit (a node
 *     already queued is not queued twice): changes are applied as soon as the worker takes them;</li>
 * <li>nothing is reconciled before the watches have delivered their initial lists, so routing never runs on a
 *     partial view; then every node is reconciled once;</li>
 * <li>every AGENT_RECONCILE_INTERVAL (counted from the end of the previous pass) every node is reconciled again,
 *     which reads the hardware limits back and rewrites any that changed behind the agent's back.</li>
 * </ul>
 */
final class AgentLoop {
    private static final Logger LOG = Logger.getLogger(AgentLoop.class);

    /** What the loop drives: the {@link NodeReconciler}; a recorder in tests. */
    interface Reconciler {
        /** Every node a pass visits; called on the worker and on the watches' threads. */
        Set<String> nodesToVisit();

        void reconcile(String node, boolean periodic);
    }

    /** What the worker does next. */
    sealed interface Task permits NodeTask, Pass {
    }

    /** Reconcile one node (an event concerned it). */
    record NodeTask(String node) implements Task {
    }

    /** A pass over every node to visit. */
    enum Pass implements Task {
        /** The watches have delivered their initial lists: label the Node and reconcile everything once. */
        SYNCED,
        /** The periodic re-check. */
        PERIODIC
    }

    private final WorkQueue<Task> queue;
    private final Reconciler reconciler;
    private final Optional<NodeLabeller> labeller;
    private final AgentMetrics metrics;
    private final Clock clock;
    private final Duration interval;
    /** The watches have synced and the SYNCED pass has begun; written by the worker only. */
    private volatile boolean synced;
    private volatile boolean stopping;
    private volatile Instant lastPeriodic;

    /** The first periodic pass is due one interval from now. */
    AgentLoop(WorkQueue<Task> queue, Reconciler reconciler, Optional<NodeLabeller> labeller, AgentMetrics metrics,
              Clock clock, Duration interval) {
        this.queue = queue;
        this.reconciler = reconciler;
        this.labeller = labeller;
        this.metrics = metrics;
        this.clock = clock;
        this.interval = interval;
        queue.addAfter(Pass.PERIODIC, interval);
    }

    /** An event concerns {@code node} (any thread). */
    void nodeChanged(String node) {
        queue.add(new NodeTask(node));
    }

    /** An event concerns every node (any thread): each is queued; before the SYNCED pass, which visits them all, none. */
    void everyNodeChanged() {
        if (synced) {
            reconciler.nodesToVisit().forEach(this::nodeChanged);
        }
    }

    /** The watches have delivered their initial lists (any thread). */
    void watchesSynced() {
        queue.add(Pass.SYNCED);
    }

    /** The worker: runs tasks as they come due until {@link #stop} (then it is interrupted). */
    void run() {
        while (!stopping) {
            Task task;
            try {
                task = queue.take();
            } catch (InterruptedException e) {
                continue; // stopping, or a stray interrupt: the loop condition decides
            }
            run(task);
        }
    }

    /** Makes {@link #run()} return once the worker is interrupted or its current task ends. */
    void stop() {
        stopping = true;
    }

    /** Runs every task due now, in order, on the calling thread; how many ran. */
    int runDue() {
        int ran = 0;
        for (Optional<Task> task = queue.poll(); task.isPresent(); task = queue.poll()) {
            run(task.get());
            ran++;
        }
        return ran;
    }

    void run(Task task) {
        try {
            switch (task) {
                case NodeTask(String node) -> {
                    if (synced) { // before that, the SYNCED pass reconciles every node
                        safely(node, false);
                    }
                }
                case Pass.SYNCED -> {
                    synced = true;
                    LOG.info("Watches synced");
                    labeller.ifPresent(NodeLabeller::label);
                    reconciler.nodesToVisit().forEach(node -> safely(node, false));
                }
                case Pass.PERIODIC -> periodic();
            }
        } catch (RuntimeException e) {
            LOG.errorf(e, "Task %s failed", task);
        }
    }

    /**
     * Before the watches have synced nothing is done and no pass is recorded, so that liveness reports an agent
     * whose watches never sync.
     */
    private void periodic() {
        try {
            if (synced) {
                try {
                    labeller.ifPresent(NodeLabeller::label);
                    reconciler.nodesToVisit().forEach(node -> safely(node, true));
                } finally {
                    lastPeriodic = clock.instant();
                    metrics.lastReconcile(lastPeriodic.getEpochSecond());
                }
            }
        } finally {
            queue.addAfter(Pass.PERIODIC, interval);
        }
    }

    private void safely(String node, boolean periodic) {
        try {
            reconciler.reconcile(node, periodic);
        } catch (RuntimeException e) {
            LOG.warnf(e, "Reconcile of node %s failed", node);
            metrics.error(node, ErrorKind.RECONCILE);
        }
    }

    /** The last completed periodic pass, or null. */
    Instant lastPeriodic() {
        return lastPeriodic;
    }
}
