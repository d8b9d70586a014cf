package io.joulie.planner;

import io.joulie.api.v1alpha1.CapConfirmation;
import io.joulie.api.v1alpha1.ControlResult;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.CpuPower;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.GpuPower;
import io.joulie.api.v1alpha1.NodePowerProfileStatus;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

import static io.joulie.api.v1alpha1.PowerState.ActiveEco;
import static io.joulie.api.v1alpha1.PowerState.ActivePerformance;
import static io.joulie.api.v1alpha1.PowerState.DrainingPerformance;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The guard's part of the performance contract beyond the two-phase downgrade: the watchdog's rescue of an eco node
 * running a performance-only pod, the pods escalation force left there, and the closed loop on the way up (the
 * performance label only once the agent confirmed the performance cap).
 */
class ContractGuardTest {
    static final Instant SINCE = Instant.parse("2026-11-21T12:00:00Z");
    static final double PERF = 5000;
    static final double ECO = 120;
    static final PlannerSettings SETTINGS = PlannerSettings.defaults().toBuilder().escalation(Escalation.FORCE)
            .performanceCapWatts(OptionalDouble.of(PERF)).ecoCapWatts(OptionalDouble.of(ECO)).build();
    static final StateGuard GUARD = new StateGuard(SETTINGS);

    static ManagedNode node(PowerState state, String label, List<String> pods) {
        return new ManagedNode("w1", label == null ? Map.of() : Map.of(JoulieApi.POWER_PROFILE_LABEL, label), false, state,
                SINCE, pods);
    }

    static NodeCap asks(Profile p, double watts, long generation, AgentReport report) {
        return new NodeCap(p, p == null ? null : CpuPower.watts(watts), null, generation, report);
    }

    static AgentReport applied(long generation, double watts) {
        return cpu(ControlResult.APPLIED, generation, watts, 0, "applied node cap");
    }

    /** The answer of a node's agent for its CPU packages alone. */
    static AgentReport cpu(ControlResult result, long generation, Double watts, double throttle, String message) {
        return new AgentReport(new NodePowerProfileStatus.Applied((long) generation, new NodePowerProfileStatus.Cpu(result, "powercap", watts, throttle, null, message),
                null, null), true);
    }

    @Test
    void aPerformanceOnlyPodOnAnEcoNodeSendsItBackToThePerformanceCapAtOnce() {
        ManagedNode n = node(ActiveEco, "eco", List.of("hpc/late"));

        Transition t = GUARD.check(n, ActiveEco, "static_partition", SINCE.plusSeconds(1));

        assertThat(t.outcome()).isEqualTo(Outcome.RESCUED);
        assertThat(t.to()).as("the plan still wants eco: drain").isEqualTo(DrainingPerformance);
        assertThat(t.to().profile()).isEqualTo(Profile.PERFORMANCE);
        assertThat(t.since()).isEqualTo(SINCE.plusSeconds(1));
        assertThat(t.label()).isEqualTo(JoulieApi.DRAINING_PERFORMANCE);
        assertThat(t.raises()).as("written before any lower").isTrue();
        assertThat(t.reason()).isEqualTo("1 performance-only pod under the eco cap: back to the performance cap, draining");
        assertThat(n.violators()).containsExactly("hpc/late");

        // planned performance instead: the raise, which is a rescue too (urgent, never deferred nor backed off)
        Transition up = GUARD.check(n, ActivePerformance, "static_partition", SINCE.plusSeconds(1));
        assertThat(up.to()).isEqualTo(ActivePerformance);
        assertThat(up.outcome()).isEqualTo(Outcome.RESCUED);
        assertThat(GUARD.check(node(ActiveEco, "eco", List.of()), ActivePerformance, "p", SINCE).outcome())
                .as("without a pod under the eco cap it is a plain raise").isEqualTo(Outcome.COMPLETED);
    }

    @Test
    void podsForceLeftUnderTheEcoCapAreNotRescuedButANewOneIs() {
        ManagedNode draining = node(DrainingPerformance, JoulieApi.DRAINING_PERFORMANCE, List.of("hpc/a", "hpc/b"));
        Transition forced = GUARD.check(draining, ActiveEco, "p", SINCE.plus(Duration.ofHours(1)));
        assertThat(forced.outcome()).isEqualTo(Outcome.FORCED);
        assertThat(forced.forcedPods()).containsExactly("hpc/a", "hpc/b");

        ManagedNode eco = node(ActiveEco, "eco", List.of("hpc/b")).withForcedPods(forced.forcedPods());
        Transition steady = GUARD.check(eco, ActiveEco, "p", SINCE.plus(Duration.ofHours(2)));
        assertThat(steady.outcome()).isEqualTo(Outcome.STEADY);
        assertThat(steady.forcedPods()).as("the ones gone are forgotten").containsExactly("hpc/b");
        assertThat(eco.violators()).isEmpty();

        ManagedNode intruded = node(ActiveEco, "eco", List.of("hpc/b", "hpc/new")).withForcedPods(List.of("hpc/b"));
        Transition rescued = GUARD.check(intruded, ActiveEco, "p", SINCE.plus(Duration.ofHours(2)));
        assertThat(rescued.outcome()).isEqualTo(Outcome.RESCUED);
        assertThat(rescued.reason()).startsWith("1 performance-only pod under the eco cap");
        assertThat(rescued.forcedPods()).as("only ActiveEco keeps them").isEmpty();
    }

    @Test
    void onTheWayUpTheCapGoesFirstAndTheLabelWaitsForTheAgent() {
        // eco node, its agent applied the eco cap (generation 4); the plan wants performance: the spec changes (generation
        // 5 to come), which no report can answer yet
        ManagedNode eco = node(ActiveEco, "eco", List.of()).withCap(asks(Profile.ECO, ECO, 4, applied(4, ECO)));
        Transition up = GUARD.check(eco, ActivePerformance, "p", SINCE);
        assertThat(up.to()).isEqualTo(ActivePerformance);
        assertThat(up.label()).isEqualTo("eco");
        assertThat(up.awaitsAgent()).isTrue();
        assertThat(up.cap().confirmation()).isEqualTo(CapConfirmation.Waiting);
        assertThat(up.cap().message()).contains("waiting for the agent to apply the performance cap");

        // the next look: the spec asks performance (generation 5); the report still answers 4
        ManagedNode waiting = node(ActivePerformance, "eco", List.of()).withCap(asks(Profile.PERFORMANCE, PERF, 5, applied(4, ECO)));
        Transition still = GUARD.check(waiting, ActivePerformance, "p", SINCE.plusSeconds(1));
        assertThat(still.outcome()).isEqualTo(Outcome.STEADY);
        assertThat(still.label()).isEqualTo("eco");

        // the agent applied generation 5, but DVFS still throttles: wait
        ManagedNode throttled = waiting.withCap(asks(Profile.PERFORMANCE, PERF, 5,
                cpu(ControlResult.APPLIED, 5, PERF, 40, "dvfs")));
        assertThat(GUARD.check(throttled, ActivePerformance, "p", SINCE.plusSeconds(2)).label()).isEqualTo("eco");
        assertThat(GUARD.check(throttled, ActivePerformance, "p", SINCE.plusSeconds(2)).cap().message()).contains("DVFS throttle (40 %)");

        // confirmed: now the label
        ManagedNode confirmed = waiting.withCap(asks(Profile.PERFORMANCE, PERF, 5, applied(5, 480)));
        Transition labelled = GUARD.check(confirmed, ActivePerformance, "p", SINCE.plusSeconds(3));
        assertThat(labelled.label()).isEqualTo("performance");
        assertThat(labelled.cap()).isEqualTo(new CapStatus(CapConfirmation.Confirmed, ""));
        assertThat(labelled.awaitsAgent()).isFalse();
    }

    @Test
    void aRefusalKeepsTheLabelWaitingAndSaysWhy() {
        ManagedNode n = node(ActivePerformance, "eco", List.of()).withCap(asks(Profile.PERFORMANCE, PERF, 2,
                cpu(ControlResult.BLOCKED, 2, ECO, 0, "firmware lock")));

        Transition t = GUARD.check(n, ActivePerformance, "p", SINCE);

        assertThat(t.label()).isEqualTo("eco");
        assertThat(t.cap().confirmation()).isEqualTo(CapConfirmation.Refused);
        assertThat(t.cap().message()).isEqualTo("the agent reports CPU blocked: firmware lock");
    }

    @Test
    void aNodeNoAgentCapsIsLabelledOnceItsAnswerSaysSoAndSaysItIsUnconfirmed() {
        Transition t = GUARD.check(node(ActiveEco, "eco", List.of()), ActivePerformance, "p", SINCE);

        assertThat(t.label()).isEqualTo("performance");
        assertThat(t.cap().confirmation()).isEqualTo(CapConfirmation.Unreported);

        // an agent routed to none answers each generation with None: once it answered the performance one, nothing caps
        // the node (until then the answer is for the eco spec, and the node waits: fail closed)
        ManagedNode none = node(ActiveEco, "eco", List.of()).withCap(asks(Profile.ECO, ECO, 3,
                cpu(ControlResult.NONE, 3, null, 0, "routed to none")));
        assertThat(GUARD.check(none, ActivePerformance, "p", SINCE).label()).isEqualTo("eco");
        ManagedNode answered = node(ActivePerformance, "eco", List.of()).withCap(asks(Profile.PERFORMANCE, PERF, 4,
                cpu(ControlResult.NONE, 4, null, 0, "routed to none")));
        Transition routedAway = GUARD.check(answered, ActivePerformance, "p", SINCE);
        assertThat(routedAway.label()).isEqualTo("performance");
        assertThat(routedAway.cap().confirmation()).isEqualTo(CapConfirmation.Unreported);
        assertThat(routedAway.cap().message()).contains("does not control this node's CPU");
    }

    @Test
    void aLabelOnceGivenStaysWhateverTheAgentSaysLater() {
        ManagedNode n = node(ActivePerformance, "performance", List.of()).withCap(asks(Profile.PERFORMANCE, PERF, 7,
                cpu(ControlResult.ERROR, 7, null, 0, "EIO")));

        Transition t = GUARD.check(n, ActivePerformance, "p", SINCE);

        assertThat(t.label()).isEqualTo("performance");
        assertThat(t.cap().confirmation()).isEqualTo(CapConfirmation.Refused);
    }

    @Test
    void aNodeWithoutALabelThatWaitsIsLabelledEco() {
        ManagedNode n = node(ActivePerformance, null, List.of()).withCap(asks(null, 0, 0, applied(9, ECO)));

        assertThat(GUARD.check(n, ActivePerformance, "p", SINCE).label()).isEqualTo("eco");
        assertThat(GUARD.check(node(DrainingPerformance, JoulieApi.DRAINING_PERFORMANCE, List.of())
                .withCap(asks(Profile.PERFORMANCE, PERF, 3, applied(2, ECO))), ActivePerformance, "p", SINCE).label())
                .as("a draining label admits no performance-only pod either").isEqualTo(JoulieApi.DRAINING_PERFORMANCE);
    }

    @Test
    void theEcoCapIsConfirmedToo() {
        ManagedNode draining = node(DrainingPerformance, JoulieApi.DRAINING_PERFORMANCE, List.of())
                .withCap(asks(Profile.PERFORMANCE, PERF, 3, applied(3, PERF)));
        Transition down = GUARD.check(draining, ActiveEco, "p", SINCE.plus(Duration.ofMinutes(1)));
        assertThat(down.to()).isEqualTo(ActiveEco);
        assertThat(down.cap().confirmation()).as("the spec changes to eco").isEqualTo(CapConfirmation.Waiting);
        assertThat(down.label()).isEqualTo("eco");

        ManagedNode eco = node(ActiveEco, "eco", List.of()).withCap(asks(Profile.ECO, ECO, 4, applied(4, ECO)));
        assertThat(GUARD.check(eco, ActiveEco, "p", SINCE).cap().confirmation()).isEqualTo(CapConfirmation.Confirmed);
    }

    @Test
    void theRecheckBetweenTicksHeadsWhereTheStateSaysAndKeepsTheReason() {
        String reason = "selected for eco by static_partition; schedule 'night'";
        ManagedNode draining = node(DrainingPerformance, JoulieApi.DRAINING_PERFORMANCE, List.of()).withReason(reason);
        Transition early = GUARD.recheck(draining, null, "static_partition", SINCE.plusSeconds(4));
        assertThat(early.to()).isEqualTo(DrainingPerformance);
        assertThat(early.reason()).isEqualTo(reason);
        Transition commit = GUARD.recheck(draining, null, "static_partition", SINCE.plusSeconds(5));
        assertThat(commit.to()).isEqualTo(ActiveEco);
        assertThat(commit.reason()).isEqualTo("selected for eco by static_partition");
        assertThat(GUARD.commitAt(draining)).isEqualTo(SINCE.plusSeconds(5));

        ManagedNode waiting = node(ActivePerformance, "eco", List.of()).withReason("selected for performance by x; note")
                .withCap(asks(Profile.PERFORMANCE, PERF, 5, applied(5, PERF)));
        Transition labelled = GUARD.recheck(waiting, null, "x", SINCE);
        assertThat(labelled.changed()).isFalse();
        assertThat(labelled.label()).isEqualTo("performance");
        assertThat(labelled.reason()).isEqualTo("selected for performance by x; note");
    }

    @Test
    void aCommitWrittenHalfWayUnderAPodThatArrivedIsRescuedToo() {
        // the commit's spec write (eco) landed, its state write did not; then a performance-only pod arrived
        ManagedNode n = node(DrainingPerformance, "eco", List.of("hpc/late")).withCap(asks(Profile.ECO, ECO, 6, applied(5, PERF)));
        assertThat(n.violators()).containsExactly("hpc/late");

        Transition t = GUARD.check(n, ActiveEco, "p", SINCE.plusSeconds(10));

        assertThat(t.outcome()).isEqualTo(Outcome.RESCUED);
        assertThat(t.to()).as("it stays draining, with the performance cap").isEqualTo(DrainingPerformance);
        assertThat(t.since()).isEqualTo(SINCE);
        assertThat(NodeAssignment.of(t, SETTINGS.caps(t.to().profile()), "p", NodePower.UNKNOWN, null).cpu()).isEqualTo(CpuPower.watts(PERF));
        // force after the timeout commits eco as it would have
        assertThat(GUARD.check(n, ActiveEco, "p", SINCE.plus(Duration.ofHours(1))).outcome()).isEqualTo(Outcome.FORCED);
    }

    @Test
    void aGpuOnlyNodeIsConfirmedOrRefusedByItsGpuAnswer() {
        NodePower gpus = new NodePower(OptionalDouble.empty(), 2, OptionalDouble.of(1400), true, false, true);
        GpuPower perfGpu = SETTINGS.caps(Profile.PERFORMANCE).gpu();
        NodePowerProfileStatus.Cpu noCpu = new NodePowerProfileStatus.Cpu(ControlResult.NONE, "none", null, null, null, "routed to none");
        java.util.function.Function<NodePowerProfileStatus.Gpu, ManagedNode> answering = gpu -> new ManagedNode("g1",
                Map.of(JoulieApi.POWER_PROFILE_LABEL, "eco"), false, ActivePerformance, SINCE, List.of(), gpus)
                .withCap(new NodeCap(Profile.PERFORMANCE, CpuPower.watts(PERF), perfGpu, 5,
                        new AgentReport(new NodePowerProfileStatus.Applied(5L, noCpu, gpu, null), true)));

        Transition applied = GUARD.check(answering.apply(new NodePowerProfileStatus.Gpu(ControlResult.APPLIED, "nvml",
                List.of(new NodePowerProfileStatus.Device(0, "H100", 700.0)), null)), ActivePerformance, "p", SINCE);
        assertThat(applied.cap().confirmation()).isEqualTo(CapConfirmation.Confirmed);
        assertThat(applied.label()).isEqualTo("performance");

        Transition blocked = GUARD.check(answering.apply(new NodePowerProfileStatus.Gpu(ControlResult.BLOCKED, "nvml", null,
                "limit below the board's minimum")), ActivePerformance, "p", SINCE);
        assertThat(blocked.cap().confirmation()).isEqualTo(CapConfirmation.Refused);
        assertThat(blocked.cap().message()).isEqualTo("the agent reports GPU blocked: limit below the board's minimum");
        assertThat(blocked.label()).isEqualTo("eco");

        Transition silent = GUARD.check(answering.apply(null), ActivePerformance, "p", SINCE);
        assertThat(silent.cap().confirmation()).as("the generation answered, the GPUs not").isEqualTo(CapConfirmation.Waiting);
        assertThat(silent.label()).isEqualTo("eco");
    }

    @Test
    void aGpuNodeWithoutCpuControlGoesEcoAndComesBackToPerformanceLabelIncluded() {
        // a cloud GPU VM: no RAPL, no cpufreq (its inventory says CPU control none); the agent answers CPU blocked
        NodePower gpuOnly = new NodePower(OptionalDouble.empty(), 2, OptionalDouble.of(1400), true, false, true);
        NodePowerProfileStatus.Cpu cpuBlocked = new NodePowerProfileStatus.Cpu(ControlResult.BLOCKED, "none", null, null, null,
                "no RAPL zone and no cpufreq policy");
        NodePowerProfileStatus.Gpu gpuApplied = new NodePowerProfileStatus.Gpu(ControlResult.APPLIED, "nvml",
                List.of(new NodePowerProfileStatus.Device(0, "H100", 700.0)), null);
        java.util.function.BiFunction<Profile, Long, NodeCap> asked = (p, gen) -> new NodeCap(p, SETTINGS.caps(p).cpu(),
                SETTINGS.caps(p).gpu(), gen, new AgentReport(new NodePowerProfileStatus.Applied(gen, cpuBlocked, gpuApplied, null), true));
        java.util.function.BiFunction<PowerState, String, ManagedNode> g1 = (state, label) -> new ManagedNode("g1",
                Map.of(JoulieApi.POWER_PROFILE_LABEL, label), false, state, SINCE, List.of(), gpuOnly);

        // down: drain, then eco once settled
        Transition drain = GUARD.check(g1.apply(ActivePerformance, "performance").withCap(asked.apply(Profile.PERFORMANCE, 3L)),
                ActiveEco, "p", SINCE);
        assertThat(drain.to()).isEqualTo(DrainingPerformance);
        assertThat(drain.label()).isEqualTo(JoulieApi.DRAINING_PERFORMANCE);
        Transition eco = GUARD.check(g1.apply(DrainingPerformance, JoulieApi.DRAINING_PERFORMANCE)
                .withCap(asked.apply(Profile.PERFORMANCE, 3L)), ActiveEco, "p", SINCE.plusSeconds(60));
        assertThat(eco.to()).isEqualTo(ActiveEco);
        assertThat(eco.label()).isEqualTo("eco");

        // up: the cap goes first; the label waits for the agent's answer to the new generation ...
        ManagedNode ecoNode = g1.apply(ActiveEco, "eco");
        Transition raise = GUARD.check(ecoNode.withCap(asked.apply(Profile.ECO, 4L)), ActivePerformance, "p", SINCE.plusSeconds(120));
        assertThat(raise.to()).isEqualTo(ActivePerformance);
        assertThat(raise.label()).isEqualTo("eco");
        // ... which says CPU blocked (there is no CPU control) and GPU applied: confirmed, labelled performance
        Transition confirmed = GUARD.check(g1.apply(ActivePerformance, "eco").withCap(asked.apply(Profile.PERFORMANCE, 5L)),
                ActivePerformance, "p", SINCE.plusSeconds(130));
        assertThat(confirmed.cap().confirmation()).isEqualTo(CapConfirmation.Confirmed);
        assertThat(confirmed.label()).isEqualTo("performance");

        // the same answer from a node whose inventory shows CPU control is a refusal: the label waits
        NodePower both = new NodePower(OptionalDouble.of(500), 2, OptionalDouble.of(1400), true, true, true);
        ManagedNode cpuNode = new ManagedNode("g2", Map.of(JoulieApi.POWER_PROFILE_LABEL, "eco"), false, ActivePerformance, SINCE,
                List.of(), both).withCap(asked.apply(Profile.PERFORMANCE, 5L));
        Transition refused = GUARD.check(cpuNode, ActivePerformance, "p", SINCE.plusSeconds(130));
        assertThat(refused.cap().confirmation()).isEqualTo(CapConfirmation.Refused);
        assertThat(refused.label()).isEqualTo("eco");
    }

    @Test
    void aNodeWhoseAgentNeverAnsweredIsNotConfirmedButANodeNoAgentServesIs() {
        ManagedNode served = node(ActivePerformance, "eco", List.of()).withCap(asks(Profile.PERFORMANCE, PERF, 2,
                new AgentReport(null, true)));
        Transition waits = GUARD.check(served, ActivePerformance, "p", SINCE);
        assertThat(waits.cap().confirmation()).isEqualTo(CapConfirmation.Waiting);
        assertThat(waits.cap().message()).isEqualTo("the node's agent has not answered its NodePowerProfile yet");
        assertThat(waits.label()).isEqualTo("eco");

        ManagedNode unserved = node(ActivePerformance, "eco", List.of()).withCap(asks(Profile.PERFORMANCE, PERF, 2, AgentReport.NONE));
        Transition free = GUARD.check(unserved, ActivePerformance, "p", SINCE);
        assertThat(free.cap().confirmation()).isEqualTo(CapConfirmation.Unreported);
        assertThat(free.label()).isEqualTo("performance");
    }

    @Test
    void anAgentThatRestoredTheLimitsItFoundDoesNotHoldTheCap() {
        ManagedNode restored = node(ActiveEco, "eco", List.of()).withCap(asks(Profile.ECO, ECO, 4,
                cpu(ControlResult.RESTORED, 4, 400.0, 0, "agent stopped; restored 2 packages")));
        Transition t = GUARD.check(restored, ActiveEco, "p", SINCE);
        assertThat(t.cap().confirmation()).isEqualTo(CapConfirmation.Waiting);
        assertThat(t.cap().message()).isEqualTo("the agent restored the CPU limits it found on the hardware: agent stopped; restored "
                + "2 packages");

        ManagedNode up = node(ActivePerformance, "eco", List.of()).withCap(asks(Profile.PERFORMANCE, PERF, 6,
                cpu(ControlResult.RESTORED, 6, 400.0, 0, "agent stopped")));
        assertThat(GUARD.check(up, ActivePerformance, "p", SINCE).label()).as("not performance on a restore").isEqualTo("eco");
    }
}
