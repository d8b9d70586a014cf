package io.joulie.operator.runtime;

import io.joulie.api.v1alpha1.ConditionReason;
import io.joulie.api.v1alpha1.JoulieStatus;
import io.joulie.api.v1alpha1.JoulieStatusAggregator.Problem;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.operator.cluster.EventReason;
import io.joulie.operator.cluster.EventSink;
import io.joulie.operator.metrics.ErrorKind;
import io.joulie.operator.metrics.PlannerMetrics;
import io.joulie.operator.metrics.RuleMetrics;
import io.joulie.operator.metrics.TickResult;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.ManagedNode;
import io.joulie.planner.Planner;
import io.joulie.planner.RuleReport;
import io.joulie.planner.Telemetry;
import io.joulie.planner.Transition;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What a tick leaves behind besides its writes: the tick's result and duration, the node and decision gauges, the
 * report to the {@code Joulie} status ({@link PlannerStatus}), the rule gauges and a Warning Event when the power
 * budget becomes unmeetable (once per episode), and when the last tick completed (liveness).
 */
@ApplicationScoped
public class TickRecorder {
    private static final Logger LOG = Logger.getLogger(TickRecorder.class);

    private final PlannerMetrics metrics;
    private final RuleMetrics rules;
    private final PlannerStatus status;
    private final EventSink events;
    private final Clock clock;
    private final AtomicReference<Instant> lastCompleted = new AtomicReference<>();

    public TickRecorder(PlannerMetrics metrics, RuleMetrics rules, PlannerStatus status, EventSink events, Clock clock) {
        this.metrics = metrics;
        this.rules = rules;
        this.status = status;
        this.events = events;
        this.clock = clock;
    }

    /** Starts timing a tick that plans. */
    public Timer.Sample start() {
        return Timer.start();
    }

    public void stop(Timer.Sample sample) {
        sample.stop(metrics.tickTimer());
    }

    /** A tick that did not plan or did not finish. */
    public void skipped(TickResult result) {
        metrics.tick(result);
    }

    /** A tick that failed as a whole. */
    public void failed(RuntimeException e) {
        metrics.error(ErrorKind.TICK);
        metrics.tick(TickResult.ERROR);
        LOG.error("Planning tick failed", e);
    }

    /**
     * A tick that planned and wrote its plan, {@code failures} nodes excepted.
     *
     * @param held    the budget count the planner holds for the next tick while telemetry is out, if any
     * @param overdue the nodes whose label has waited for their agent longer than CAP_CONFIRMATION_TIMEOUT, each with why
     */
    public void completed(ClusterContext ctx, Planner.TickPlan plan, int failures, Optional<JoulieStatus.BudgetHold> held,
                          List<String> overdue) {
        Map<PowerState, Long> counts = countsAfter(ctx, plan);
        int waiting = (int) plan.transitions().stream().filter(Transition::awaitsAgent).count();
        metrics.nodes(ctx.nodes().size(), counts, ctx.excluded().size(), oldestDrainSeconds(ctx, plan));
        metrics.decided(plan.transitions().size(), plan.reassignments(), plan.plan().performanceNodes());
        List<Problem> problems = problems(plan.rules());
        if (!overdue.isEmpty()) {
            problems.add(new Problem(ConditionReason.CapUnconfirmed, "the agent has not confirmed the performance cap of "
                    + String.join(", ", overdue) + "; the performance label waits"));
        }
        status.publish(new PlannerStatus.Report(
                new JoulieStatus.Nodes(ctx.nodes().size(), count(counts, PowerState.ActivePerformance) - waiting,
                        count(counts, PowerState.DrainingPerformance), count(counts, PowerState.ActiveEco),
                        ctx.excluded().size(), waiting),
                ctx.excluded().stream().map(e -> new JoulieStatus.ExcludedNode(e.node(), e.reason(), e.message())).toList(),
                problems, held.orElse(null)));
        if (rules.record(plan.rules())) {
            String m = budgetMessage(plan.rules().budget().orElseThrow());
            LOG.warn(m);
            events.installation(EventReason.PowerBudgetUnmet, m);
        }
        Instant now = clock.instant();
        lastCompleted.set(now);
        metrics.completedAt(now.getEpochSecond());
        metrics.tick(failures == 0 ? TickResult.OK : TickResult.PARTIAL);
    }

    /** When the last tick completed, if one has. */
    public Instant lastCompleted() {
        return lastCompleted.get();
    }

    /** Managed nodes by state once this tick's transitions are written. */
    private static Map<PowerState, Long> countsAfter(ClusterContext ctx, Planner.TickPlan plan) {
        Map<PowerState, Long> counts = new EnumMap<>(PowerState.class);
        for (ManagedNode n : ctx.nodes()) {
            counts.merge(n.state(), 1L, Long::sum);
        }
        for (Transition t : plan.transitions()) {
            if (t.changed()) {
                counts.merge(t.from(), -1L, Long::sum);
                counts.merge(t.to(), 1L, Long::sum);
            }
        }
        return counts;
    }

    /** Age of the longest drain still going on after this tick's transitions; 0 when no node is draining. */
    static long oldestDrainSeconds(ClusterContext ctx, Planner.TickPlan plan) {
        Map<String, Transition> byNode = new HashMap<>();
        plan.transitions().forEach(t -> byNode.put(t.node(), t));
        long oldest = 0;
        for (ManagedNode n : ctx.nodes()) {
            Transition t = byNode.get(n.name());
            PowerState after = t != null && t.changed() ? t.to() : n.state();
            if (after == PowerState.DrainingPerformance && n.state() == PowerState.DrainingPerformance) {
                oldest = Math.max(oldest, Duration.between(n.since(), ctx.now()).toSeconds());
            }
        }
        return oldest;
    }

    private static int count(Map<PowerState, Long> counts, PowerState state) {
        return counts.getOrDefault(state, 0L).intValue();
    }

    /** TelemetryUnavailable and PowerBudgetUnmet, as the rules' report shows them. */
    static List<Problem> problems(RuleReport r) {
        List<Problem> problems = new ArrayList<>(2);
        if (r.telemetry() == Telemetry.Status.UNAVAILABLE) {
            problems.add(new Problem(ConditionReason.TelemetryUnavailable, "telemetry-driven rules hold their last "
                    + "decisions: " + r.telemetryDetail()));
        }
        r.budget().filter(b -> !b.met()).ifPresent(b -> problems.add(new Problem(ConditionReason.PowerBudgetUnmet,
                budgetMessage(b))));
        return problems;
    }

    static String budgetMessage(RuleReport.Budget b) {
        return "the power budget of %s W cannot be met: %s W estimated (%s) with every node that may go eco in eco"
                .formatted(watts(b.limitWatts()), watts(b.estimateWatts()), b.basis());
    }

    private static String watts(double w) {
        return Double.isNaN(w) ? "?" : String.valueOf(Math.round(w));
    }
}
