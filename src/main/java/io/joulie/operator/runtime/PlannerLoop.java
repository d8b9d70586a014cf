package io.joulie.operator.runtime;

import io.joulie.api.text.Durations;
import io.joulie.operator.metrics.TickResult;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.ContextProvider;
import io.joulie.planner.Planner;
import io.joulie.planner.PlannerSettings;
import io.micrometer.core.instrument.Timer;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.Scheduler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The per-interval tick: {@link TickGate} (leader, watches synced) → {@link PolicyReloader} (the planner in force) →
 * {@link ContextProvider#snapshot()} → {@link Planner#plan} → {@link PlanExecutor} (the writes) → {@link TickRecorder}
 * (metrics, status, Events). A Quarkus scheduler job runs it every {@code RECONCILE_INTERVAL} in force, skipping a
 * run while the previous one is still going.
 */
@ApplicationScoped
public class PlannerLoop {
    private static final Logger LOG = Logger.getLogger(PlannerLoop.class);
    /** The scheduler job's identity (tests pause it to drive the tick themselves). */
    public static final String JOB = "joulie-planner";

    private final Scheduler scheduler;
    private final TickGate gate;
    private final PolicyReloader policy;
    private final ContextProvider context;
    private final PlanExecutor executor;
    private final TickRecorder recorder;
    private Duration scheduledInterval;
    private final AtomicBoolean tickRequested = new AtomicBoolean();

    public PlannerLoop(Scheduler scheduler, TickGate gate, PolicyReloader policy, ContextProvider context,
                       PlanExecutor executor, TickRecorder recorder) {
        this.scheduler = scheduler;
        this.gate = gate;
        this.policy = policy;
        this.context = context;
        this.executor = executor;
        this.recorder = recorder;
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
    public synchronized boolean tick() {
        Optional<TickResult> closed = gate.closed();
        if (closed.isPresent()) {
            recorder.skipped(closed.get());
            return false;
        }
        Planner planner = policy.reload();
        if (!planner.settings().reconcileInterval().equals(scheduledInterval)) {
            schedule(planner.settings().reconcileInterval());
            LOG.infof("Planning every %s", Durations.format(scheduledInterval));
        }
        Timer.Sample sample = recorder.start();
        try {
            ClusterContext ctx = context.snapshot();
            Planner.TickPlan plan = planner.plan(ctx);
            LOG.debugf("Tick: %d managed nodes, %s", ctx.nodes().size(), plan.plan().summary());
            PlanExecutor.Result written = executor.execute(plan, planner.settings());
            if (written.interrupted()) {
                LOG.info("Leadership lost during the tick; leaving the rest to the new leader");
                recorder.skipped(TickResult.INTERRUPTED);
                return false;
            }
            recorder.completed(ctx, plan, written.failures());
            return true;
        } catch (RuntimeException e) {
            recorder.failed(e);
            return false;
        } finally {
            recorder.stop(sample);
        }
    }

    /** When the last tick completed, if one has. */
    public Instant lastCompleted() {
        return recorder.lastCompleted();
    }
}
