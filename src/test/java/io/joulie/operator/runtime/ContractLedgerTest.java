package io.joulie.operator.runtime;

import io.joulie.api.v1alpha1.CapConfirmation;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.CpuPower;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.operator.cluster.EventReason;
import io.joulie.operator.metrics.PlannerMetrics;
import io.joulie.planner.AgentReport;
import io.joulie.planner.CapStatus;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.ManagedNode;
import io.joulie.planner.NodeCap;
import io.joulie.planner.Outcome;
import io.joulie.planner.Plan;
import io.joulie.planner.Planner;
import io.joulie.planner.PlannerSettings;
import io.joulie.planner.Transition;
import io.joulie.testkit.FakeClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;

import static io.joulie.api.v1alpha1.PowerState.ActiveEco;
import static io.joulie.api.v1alpha1.PowerState.ActivePerformance;
import static io.joulie.api.v1alpha1.PowerState.DrainingPerformance;
import static org.assertj.core.api.Assertions.assertThat;

/** The books of the contract: violations counted once and timed until they end, waits for the agent named once overdue. */
class ContractLedgerTest {
    static final PlannerSettings SETTINGS = PlannerSettings.defaults().toBuilder().capConfirmationTimeout(Duration.ofMinutes(2)).build();

    final FakeClock clock = new FakeClock();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final RecordingEvents events = new RecordingEvents();
    final Map<String, Instant> seen = new HashMap<>();
    final ContractLedger ledger = new ContractLedger(new PlannerMetrics(registry), events, clock, seen::get);
    final Instant t0 = clock.instant();

    static ManagedNode node(String name, PowerState state, Instant since, String... pods) {
        return new ManagedNode(name, Map.of(), false, state, since, List.of(pods));
    }

    static Transition verdict(ManagedNode n, PowerState to, CapConfirmation cap) {
        Outcome o = n.state() == to ? Outcome.STEADY : n.state() == ActiveEco && to == DrainingPerformance ? Outcome.RESCUED
                : Outcome.COMPLETED;
        String label = to == ActivePerformance && cap != CapConfirmation.Confirmed && cap != CapConfirmation.Unreported
                ? "eco" : to.labelValue();
        return new Transition(n.name(), n.state(), to == ActivePerformance ? ActivePerformance : ActiveEco, to, n.since(), o,
                "r", List.of(), label, new CapStatus(cap, "waiting for the agent"), List.of());
    }

    Map<String, Instant> observe(boolean whole, ManagedNode n, Transition t) {
        var plan = new Planner.TickPlan(new Plan("p", Map.of(), 0, "t"), List.of(t), List.of());
        return ledger.observe(new ClusterContext(clock.instant(), List.of(n), 1), plan, SETTINGS, whole);
    }

    double count(String name) {
        return registry.get(name).counter().count();
    }

    @Test
    void aForcedCommitWrittenHalfWayIsNoViolationButAPodUnderItsEcoCapOtherwiseIs() {
        // the eco cap of a forced commit landed, the record of its pods (and the state) did not yet
        ManagedNode half = node("w1", DrainingPerformance, t0, "hpc/p").withCap(new NodeCap(Profile.ECO, CpuPower.watts(120), null, 3,
                AgentReport.NONE));
        clock.advance(Duration.ofMinutes(31));
        Transition forced = new Transition("w1", DrainingPerformance, ActiveEco, ActiveEco, clock.instant(), Outcome.FORCED, "f",
                List.of(), "eco", CapStatus.UNREPORTED, List.of("hpc/p"));
        observe(false, half, forced);
        assertThat(count("joulie.contract.violations")).isZero();
        assertThat(events.of(EventReason.ContractViolation)).isEmpty();

        // with no force due, the same pod under that eco cap is a violation, rescued
        observe(false, half, new Transition("w1", DrainingPerformance, ActiveEco, DrainingPerformance, t0, Outcome.RESCUED, "r",
                List.of(), "draining-performance", CapStatus.UNREPORTED, List.of()));
        assertThat(count("joulie.contract.violations")).isEqualTo(1);
    }

    @Test
    void aViolationIsCountedOnceWarnedWithoutThePodsNameAndTimedUntilTheAgentConfirmsThePerformanceCap() {
        seen.put("hpc/p", t0.plusSeconds(5));
        clock.advance(Duration.ofSeconds(6));
        ManagedNode eco = node("w1", ActiveEco, t0, "hpc/p");
        observe(false, eco, verdict(eco, DrainingPerformance, CapConfirmation.Waiting));
        observe(false, eco, verdict(eco, DrainingPerformance, CapConfirmation.Waiting));

        assertThat(count("joulie.contract.violations")).isEqualTo(1);
        assertThat(events.of(EventReason.ContractViolation)).singleElement().asString()
                .contains("a performance-only pod runs under the eco cap of node w1 (seen there 2026-11-21T12:00:05Z)")
                .doesNotContain("hpc/p");
        assertThat(registry.get("joulie.contract.violation").timer().count()).as("still under the eco cap").isZero();

        // rescued, and the agent confirms the performance cap 2 s later
        clock.advance(Duration.ofSeconds(2));
        ManagedNode draining = node("w1", DrainingPerformance, clock.instant(), "hpc/p");
        observe(false, draining, verdict(draining, DrainingPerformance, CapConfirmation.Confirmed));

        var timer = registry.get("joulie.contract.violation").timer();
        assertThat(timer.count()).isEqualTo(1);
        assertThat(timer.totalTime(TimeUnit.MILLISECONDS)).as("from when it was seen there").isEqualTo(3_000);
    }

    @Test
    void aViolationEndsWhenThePodLeavesAndCountsFromTheNodeGoingEcoIfThatWasLater() {
        seen.put("hpc/p", t0);
        clock.advance(Duration.ofSeconds(10));
        Instant ecoSince = t0.plusSeconds(8);
        ManagedNode eco = node("w1", ActiveEco, ecoSince, "hpc/p");
        observe(false, eco, verdict(eco, DrainingPerformance, CapConfirmation.Waiting));

        clock.advance(Duration.ofSeconds(1));
        ManagedNode gone = node("w1", ActiveEco, ecoSince);
        observe(false, gone, verdict(gone, ActiveEco, CapConfirmation.Confirmed));

        assertThat(registry.get("joulie.contract.violation").timer().totalTime(TimeUnit.MILLISECONDS)).isEqualTo(3_000);
    }

    @Test
    void aWaitForTheAgentIsNamedOnceItIsOverdue() {
        ManagedNode up = node("w1", ActiveEco, t0);
        Map<String, Instant> due = observe(true, up, verdict(up, ActivePerformance, CapConfirmation.Waiting));
        assertThat(due).as("look again when the wait becomes overdue").containsEntry("w1", t0.plus(Duration.ofMinutes(2)));
        assertThat(registry.get("joulie.performance.caps.unconfirmed").tag("reason", "waiting").gauge().value()).isEqualTo(1);

        clock.advance(Duration.ofMinutes(2).minusMillis(1));
        ManagedNode waiting = node("w1", ActivePerformance, t0);
        observe(false, waiting, verdict(waiting, ActivePerformance, CapConfirmation.Waiting));
        assertThat(events.of(EventReason.CapUnconfirmed)).isEmpty();
        assertThat(ledger.overdue()).isEmpty();

        clock.advance(Duration.ofMillis(1));
        assertThat(observe(false, waiting, verdict(waiting, ActivePerformance, CapConfirmation.Waiting))).isEmpty();
        observe(true, waiting, verdict(waiting, ActivePerformance, CapConfirmation.Waiting));
        assertThat(events.of(EventReason.CapUnconfirmed)).singleElement().asString()
                .contains("the agent of node w1 has not confirmed the performance cap for 2m");
        assertThat(ledger.overdue()).containsExactly("w1 (waiting for the agent)");
        assertThat(registry.get("joulie.performance.caps.unconfirmed").tag("reason", "overdue").gauge().value()).isEqualTo(1);

        observe(true, waiting, verdict(waiting, ActivePerformance, CapConfirmation.Confirmed));
        assertThat(ledger.overdue()).isEmpty();
        assertThat(registry.get("joulie.performance.caps.unconfirmed").tag("reason", "overdue").gauge().value()).isZero();
    }

    @Test
    void aNodeNoAgentReportsForIsCountedUnreported() {
        ManagedNode up = node("w1", ActiveEco, t0);
        observe(true, up, verdict(up, ActivePerformance, CapConfirmation.Unreported));

        assertThat(registry.get("joulie.performance.caps.unconfirmed").tag("reason", "unreported").gauge().value()).isEqualTo(1);
        assertThat(ledger.overdue()).isEmpty();
    }

    @Test
    void aHeldRescueIsWarnedOncePerEpisode() {
        ManagedNode eco = node("w1", ActiveEco, t0, "hpc/p");
        Transition held = new Transition("w1", ActiveEco, ActiveEco, ActiveEco, t0, Outcome.HELD,
                "rescue held: 5 rescues of this node within 10m already; 1 performance-only pod under the eco cap until the "
                        + "window allows another", List.of(), "eco", CapStatus.UNREPORTED, List.of());
        observe(false, eco, held);
        observe(true, eco, held);
        assertThat(events.of(EventReason.RescueHeld)).singleElement().asString().contains("rescue held: 5 rescues");

        // rescued at last, then held again later: a new episode, a new Warning
        observe(false, eco, verdict(eco, DrainingPerformance, CapConfirmation.Waiting));
        observe(false, eco, held);
        assertThat(events.of(EventReason.RescueHeld)).hasSize(2);
        assertThat(count("joulie.contract.violations")).as("the pod under the eco cap is a violation all along").isEqualTo(1);
    }
}
