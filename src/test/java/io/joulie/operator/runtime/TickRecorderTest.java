package io.joulie.operator.runtime;

import io.joulie.api.v1alpha1.ConditionReason;
import io.joulie.api.v1alpha1.JoulieStatus;
import io.joulie.api.v1alpha1.JoulieStatusAggregator.Problem;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.operator.cluster.EventReason;
import io.joulie.operator.metrics.PlannerMetrics;
import io.joulie.operator.metrics.RuleMetrics;
import io.joulie.operator.metrics.TickResult;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.ManagedNode;
import io.joulie.planner.Outcome;
import io.joulie.planner.Plan;
import io.joulie.planner.Planner;
import io.joulie.planner.RuleReport;
import io.joulie.planner.Telemetry;
import io.joulie.planner.Transition;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.joulie.api.v1alpha1.PowerState.ActiveEco;
import static io.joulie.api.v1alpha1.PowerState.ActivePerformance;
import static io.joulie.api.v1alpha1.PowerState.DrainingPerformance;
import static org.assertj.core.api.Assertions.assertThat;

/** What a tick leaves behind, on a fixed clock and an in-memory registry. */
class TickRecorderTest {
    static final Instant NOW = Instant.parse("2026-11-21T12:00:00Z");

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final PlannerStatus status = new PlannerStatus();
    final RecordingEvents events = new RecordingEvents();
    final TickRecorder recorder = new TickRecorder(new PlannerMetrics(registry), new RuleMetrics(registry), status, events,
            Clock.fixed(NOW, ZoneOffset.UTC));

    static ManagedNode node(String name, PowerState state, Duration inState) {
        return new ManagedNode(name, Map.of(), false, state, NOW.minus(inState), List.of());
    }

    static Transition t(String node, PowerState from, PowerState to) {
        return new Transition(node, from, to == ActivePerformance ? ActivePerformance : ActiveEco, to, NOW,
                from == to ? Outcome.BLOCKED : Outcome.COMPLETED, "r", List.of());
    }

    static Planner.TickPlan plan(int performanceNodes, RuleReport rules, Transition... transitions) {
        return new Planner.TickPlan(new Plan("static_partition", Map.of("a", Profile.ECO), performanceNodes, "test"),
                List.of(transitions), List.of(), rules, Map.of(), Map.of(), Map.of());
    }

    double gauge(String name, String... tags) {
        return registry.get(name).tags(tags).gauge().value();
    }

    double ticks(TickResult r) {
        var c = registry.find("joulie.ticks").tag("result", r.label()).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void aCompletedTickCountsNodesAsTheyAreAfterItsTransitionsAndReportsThemToTheStatus() {
        var ctx = new ClusterContext(NOW, List.of(node("a", ActivePerformance, Duration.ZERO),
                node("b", DrainingPerformance, Duration.ofSeconds(90)), node("c", ActiveEco, Duration.ofHours(1))), 0,
                List.of(), List.of(new ClusterContext.Exclusion("x", "NoPowerControl", "no knobs")));
        var plan = plan(1, RuleReport.NONE, t("a", ActivePerformance, DrainingPerformance), t("b", DrainingPerformance,
                DrainingPerformance), t("c", ActiveEco, ActiveEco));

        assertThat(recorder.lastCompleted()).isNull();
        recorder.completed(ctx, plan, 0, java.util.Optional.empty(), List.of());

        assertThat(recorder.lastCompleted()).isEqualTo(NOW);
        assertThat(gauge("joulie.last.tick.timestamp.seconds")).isEqualTo(NOW.getEpochSecond());
        assertThat(gauge("joulie.managed.nodes")).isEqualTo(3);
        assertThat(gauge("joulie.nodes", "state", "draining")).isEqualTo(2);
        assertThat(gauge("joulie.nodes", "state", "performance")).isZero();
        assertThat(gauge("joulie.nodes", "state", "eco")).isEqualTo(1);
        assertThat(gauge("joulie.excluded.nodes")).isEqualTo(1);
        assertThat(gauge("joulie.oldest.drain.seconds")).as("b has drained for 90 s; a just started").isEqualTo(90);
        assertThat(gauge("joulie.planned.performance.nodes")).isEqualTo(1);
        assertThat(gauge("joulie.tick.decisions")).isEqualTo(3);
        assertThat(ticks(TickResult.OK)).isEqualTo(1);
        assertThat(status.latest()).get().satisfies(r -> {
            assertThat(r.nodes()).isEqualTo(new JoulieStatus.Nodes(3, 0, 2, 1, 1));
            assertThat(r.excluded()).containsExactly(new JoulieStatus.ExcludedNode("x", "NoPowerControl", "no knobs"));
            assertThat(r.problems()).isEmpty();
        });
        assertThat(events.recorded).isEmpty();
    }

    @Test
    void failuresMakeAPartialTickAndSkippedTicksAreCountedByWhy() {
        var ctx = new ClusterContext(NOW, List.of(), 0);
        recorder.completed(ctx, plan(0, RuleReport.NONE), 2, java.util.Optional.empty(), List.of());
        recorder.skipped(TickResult.STANDBY);
        recorder.skipped(TickResult.STANDBY);
        recorder.failed(new IllegalStateException("boom"));

        assertThat(ticks(TickResult.PARTIAL)).isEqualTo(1);
        assertThat(ticks(TickResult.OK)).isZero();
        assertThat(ticks(TickResult.STANDBY)).isEqualTo(2);
        assertThat(ticks(TickResult.ERROR)).isEqualTo(1);
        assertThat(registry.get("joulie.errors").tag("kind", "tick").counter().count()).isEqualTo(1);
    }

    @Test
    void anUnmeetableBudgetIsAProblemWhileItLastsAndOneWarningPerEpisode() {
        var ctx = new ClusterContext(NOW, List.of(), 0);
        var unmet = new RuleReport(Optional.empty(), Telemetry.Status.AVAILABLE, "", List.of(), 0,
                Optional.of(new RuleReport.Budget(300, 412.4, "measured", false, 4)));
        var met = new RuleReport(Optional.empty(), Telemetry.Status.AVAILABLE, "", List.of(), 0,
                Optional.of(new RuleReport.Budget(300, 280, "measured", true, 1)));
        String message = "the power budget of 300 W cannot be met: 412 W estimated (measured) with every node that may go"
                + " eco in eco";

        recorder.completed(ctx, plan(0, unmet), 0, java.util.Optional.empty(), List.of());
        recorder.completed(ctx, plan(0, unmet), 0, java.util.Optional.empty(), List.of());
        assertThat(events.recorded).containsExactly("joulie PowerBudgetUnmet: " + message);
        assertThat(status.latest().orElseThrow().problems()).containsExactly(new Problem(ConditionReason.PowerBudgetUnmet, message));

        recorder.completed(ctx, plan(0, met), 0, java.util.Optional.empty(), List.of());
        assertThat(status.latest().orElseThrow().problems()).isEmpty();
        recorder.completed(ctx, plan(0, unmet), 0, java.util.Optional.empty(), List.of());
        assertThat(events.of(EventReason.PowerBudgetUnmet)).hasSize(2);
    }

    @Test
    void unavailableTelemetryIsAProblem() {
        var held = new RuleReport(Optional.empty(), Telemetry.Status.UNAVAILABLE, "Prometheus unreachable", List.of(), 0,
                Optional.of(new RuleReport.Budget(300, Double.NaN, "held", true, 0)));

        assertThat(TickRecorder.problems(held)).containsExactly(new Problem(ConditionReason.TelemetryUnavailable,
                "telemetry-driven rules hold their last decisions: Prometheus unreachable"));
        assertThat(TickRecorder.budgetMessage(new RuleReport.Budget(300, Double.NaN, "held", false, 0)))
                .contains("? W estimated (held)");
    }

    @Test
    void aNodeWhoseLabelWaitsForItsAgentIsNotCountedAsPerformanceAndAnOverdueWaitMakesTheStatusDegraded() {
        var ctx = new ClusterContext(NOW, List.of(node("a", ActiveEco, Duration.ofHours(1)), node("b", ActivePerformance,
                Duration.ofHours(1))), 0);
        Transition waiting = new Transition("a", ActiveEco, ActivePerformance, ActivePerformance, NOW, Outcome.COMPLETED, "up",
                List.of(), "eco", new io.joulie.planner.CapStatus(io.joulie.api.v1alpha1.CapConfirmation.Waiting,
                "waiting for the agent"), List.of());
        var plan = plan(2, RuleReport.NONE, waiting, t("b", ActivePerformance, ActivePerformance));

        recorder.completed(ctx, plan, 0, Optional.of(new JoulieStatus.BudgetHold(3, 900.0)), List.of("w9 (waiting for the agent)"));

        PlannerStatus.Report r = status.latest().orElseThrow();
        assertThat(r.nodes()).isEqualTo(new JoulieStatus.Nodes(2, 1, 0, 0, 0, 1));
        assertThat(r.problems()).singleElement().isEqualTo(new Problem(ConditionReason.CapUnconfirmed,
                "the agent has not confirmed the performance cap of w9 (waiting for the agent); the performance label waits"));
        assertThat(r.budgetHold()).as("the budget count held, kept in the status").isEqualTo(new JoulieStatus.BudgetHold(3, 900.0));
    }
}
