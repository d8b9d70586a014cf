package io.joulie.planner;

import io.joulie.api.v1alpha1.PowerState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static io.joulie.api.v1alpha1.PowerState.ActiveEco;
import static io.joulie.api.v1alpha1.PowerState.ActivePerformance;
import static io.joulie.api.v1alpha1.PowerState.DrainingPerformance;
import static io.joulie.planner.Escalation.EVICT;
import static io.joulie.planner.Escalation.FORCE;
import static io.joulie.planner.Escalation.HOLD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class StateGuardTest {
    private static final Duration TIMEOUT = Duration.ofMinutes(30);
    private static final Instant SINCE = Instant.parse("2025-01-01T00:00:00Z");
    private static final List<String> PODS = List.of("ns/a", "ns/b");
    private static final String POLICY = "static_partition";

    private static final Duration SETTLE = Duration.ofSeconds(5);

    private static ManagedNode node(PowerState state, List<String> pods) {
        return new ManagedNode("w1", java.util.Map.of(), false, state, SINCE, pods);
    }

    private static StateGuard guard(Escalation escalation, Duration timeout) {
        return new StateGuard(PlannerSettings.defaults().toBuilder().escalation(escalation).downgradeTimeout(timeout)
                .settleTime(SETTLE).build());
    }

    static Stream<Arguments> verdicts() {
        Duration before = TIMEOUT.minusSeconds(1);
        Duration after = TIMEOUT.plusSeconds(1);
        List<String> none = List.of();
        return Stream.of(
                // from, pods, requested, escalation, elapsed, to, outcome, evict
                // upgrades are immediate, whatever runs on the node
                arguments(ActiveEco, none, ActivePerformance, HOLD, before, ActivePerformance, Outcome.COMPLETED, none),
                // (a raise that takes performance-only pods off the eco cap is a rescue)
                arguments(ActiveEco, PODS, ActivePerformance, HOLD, before, ActivePerformance, Outcome.RESCUED, none),
                arguments(DrainingPerformance, PODS, ActivePerformance, HOLD, before, ActivePerformance, Outcome.COMPLETED, none),
                arguments(DrainingPerformance, PODS, ActivePerformance, FORCE, after, ActivePerformance, Outcome.COMPLETED, none),
                arguments(DrainingPerformance, PODS, ActivePerformance, EVICT, after, ActivePerformance, Outcome.COMPLETED, none),
                arguments(DrainingPerformance, none, ActivePerformance, HOLD, before, ActivePerformance, Outcome.COMPLETED, none),
                // nothing to do
                arguments(ActivePerformance, none, ActivePerformance, HOLD, before, ActivePerformance, Outcome.STEADY, none),
                arguments(ActivePerformance, PODS, ActivePerformance, EVICT, after, ActivePerformance, Outcome.STEADY, none),
                arguments(ActiveEco, none, ActiveEco, HOLD, before, ActiveEco, Outcome.STEADY, none),
                // the watchdog: a performance-only pod under the eco cap sends the node back to the performance cap at once,
                // whatever the escalation
                arguments(ActiveEco, PODS, ActiveEco, HOLD, Duration.ZERO, DrainingPerformance, Outcome.RESCUED, none),
                arguments(ActiveEco, PODS, ActiveEco, FORCE, after, DrainingPerformance, Outcome.RESCUED, none),
                arguments(ActiveEco, PODS, ActiveEco, EVICT, after, DrainingPerformance, Outcome.RESCUED, none),
                // downgrades
                // without performance-only pods: drain for one tick, then eco (a pod bound meanwhile is seen first)
                arguments(ActivePerformance, none, ActiveEco, HOLD, before, DrainingPerformance, Outcome.COMPLETED, none),
                arguments(ActivePerformance, PODS, ActiveEco, HOLD, before, DrainingPerformance, Outcome.COMPLETED, none),
                arguments(ActivePerformance, PODS, ActiveEco, FORCE, after, DrainingPerformance, Outcome.COMPLETED, none),
                arguments(ActivePerformance, PODS, ActiveEco, EVICT, after, DrainingPerformance, Outcome.COMPLETED, none),
                arguments(DrainingPerformance, none, ActiveEco, HOLD, before, ActiveEco, Outcome.COMPLETED, none),
                arguments(DrainingPerformance, none, ActiveEco, HOLD, after, ActiveEco, Outcome.COMPLETED, none),
                // ... once the settle time has passed
                arguments(DrainingPerformance, none, ActiveEco, HOLD, SETTLE, ActiveEco, Outcome.COMPLETED, none),
                arguments(DrainingPerformance, none, ActiveEco, HOLD, SETTLE.minusMillis(1), DrainingPerformance, Outcome.STEADY, none),
                arguments(DrainingPerformance, none, ActiveEco, HOLD, Duration.ZERO, DrainingPerformance, Outcome.STEADY, none),
                // draining with pods: wait until the timeout for every escalation
                arguments(DrainingPerformance, PODS, ActiveEco, HOLD, before, DrainingPerformance, Outcome.BLOCKED, none),
                arguments(DrainingPerformance, PODS, ActiveEco, FORCE, before, DrainingPerformance, Outcome.BLOCKED, none),
                arguments(DrainingPerformance, PODS, ActiveEco, EVICT, before, DrainingPerformance, Outcome.BLOCKED, none),
                arguments(DrainingPerformance, PODS, ActiveEco, HOLD, Duration.ZERO, DrainingPerformance, Outcome.BLOCKED, none),
                // then escalate
                arguments(DrainingPerformance, PODS, ActiveEco, HOLD, after, DrainingPerformance, Outcome.BLOCKED, none),
                arguments(DrainingPerformance, PODS, ActiveEco, FORCE, after, ActiveEco, Outcome.FORCED, none),
                arguments(DrainingPerformance, PODS, ActiveEco, EVICT, after, DrainingPerformance, Outcome.EVICTED, PODS),
                arguments(DrainingPerformance, PODS, ActiveEco, FORCE, Duration.ofDays(3), ActiveEco, Outcome.FORCED, none)
        );
    }

    @ParameterizedTest(name = "[{index}] {0} {1} -> {2} ({3}, {4} draining): {5} {6}")
    @MethodSource("verdicts")
    void verdict(PowerState from, List<String> pods, PowerState requested, Escalation escalation, Duration elapsed,
                 PowerState to, Outcome outcome, List<String> evict) {
        Instant now = SINCE.plus(elapsed);
        Transition t = guard(escalation, TIMEOUT).check(node(from, pods), requested, POLICY, now);

        assertThat(t.node()).isEqualTo("w1");
        assertThat(t.from()).isEqualTo(from);
        assertThat(t.requested()).isEqualTo(requested);
        assertThat(t.to()).isEqualTo(to);
        assertThat(t.outcome()).isEqualTo(outcome);
        assertThat(t.evict()).containsExactlyElementsOf(evict);
        assertThat(t.changed()).isEqualTo(from != to);
        // since moves only with the state
        assertThat(t.since()).isEqualTo(from == to ? SINCE : now);
        assertThat(t.reason()).isNotBlank();
    }

    @Test
    void drainReasonCountsThePodsWithoutNamingThem() {
        Transition t = guard(HOLD, TIMEOUT).check(node(ActivePerformance, PODS), ActiveEco, POLICY, SINCE);

        assertThat(t.reason()).isEqualTo("draining 2 performance-only pods");
    }

    @Test
    void blockedReasonCountsThePods() {
        Transition t = guard(HOLD, TIMEOUT).check(node(DrainingPerformance, List.of("ns/x")), ActiveEco, POLICY,
                SINCE.plusSeconds(60));

        assertThat(t.reason()).isEqualTo("draining 1 performance-only pod");
    }

    @Test
    void holdAfterTimeoutSaysSo() {
        Transition t = guard(HOLD, TIMEOUT).check(node(DrainingPerformance, PODS), ActiveEco, POLICY,
                SINCE.plus(Duration.ofHours(1)));

        assertThat(t.reason()).startsWith("draining 2 performance-only pods;").contains("timeout passed").contains("hold");
    }

    @Test
    void forceReasonNamesTimeoutAndCountsPods() {
        Transition t = guard(FORCE, TIMEOUT).check(node(DrainingPerformance, PODS), ActiveEco, POLICY,
                SINCE.plus(Duration.ofHours(1)));

        assertThat(t.reason()).contains("forced to eco").contains("30m").endsWith("still running 2 performance-only pods")
                .doesNotContain("ns/");
        assertThat(t.forcedPods()).as("the record of the pods force left is kept").containsExactlyElementsOf(PODS);
    }

    @Test
    void evictReasonNamesTimeoutAndCountsPods() {
        Transition t = guard(EVICT, Duration.ofMinutes(90)).check(node(DrainingPerformance, PODS), ActiveEco, POLICY,
                SINCE.plus(Duration.ofHours(2)));

        assertThat(t.reason()).startsWith("evicting 2 performance-only pods after").contains("1h30m").doesNotContain("ns/");
    }

    @Test
    void reasonsNameThePolicy() {
        var guard = guard(HOLD, TIMEOUT);

        assertThat(guard.check(node(ActiveEco, List.of()), ActivePerformance, "queue_aware_v1", SINCE).reason())
                .isEqualTo("selected for performance by queue_aware_v1");
        assertThat(guard.check(node(ActivePerformance, List.of()), ActiveEco, "queue_aware_v1", SINCE).reason())
                .isEqualTo("selected for eco by queue_aware_v1; settling: eco once no performance-only pod has been seen for 5s");
        assertThat(guard.check(node(DrainingPerformance, List.of()), ActiveEco, "queue_aware_v1", SINCE.plus(SETTLE)).reason())
                .isEqualTo("selected for eco by queue_aware_v1");
    }

    /** The race of the label flip: a Pod bound after the tick's snapshot keeps its node at the performance cap. */
    @Test
    void aDowngradeDrainsForTheSettleTimeSoAPodBoundMeanwhileKeepsThePerformanceCap() {
        var guard = guard(HOLD, TIMEOUT);
        Transition first = guard.check(node(ActivePerformance, List.of()), ActiveEco, POLICY, SINCE);
        assertThat(first.to()).isEqualTo(DrainingPerformance);
        assertThat(first.to().profile()).isEqualTo(io.joulie.api.v1alpha1.Profile.PERFORMANCE);

        Transition second = guard.check(node(DrainingPerformance, List.of("ns/late")), ActiveEco, POLICY, SINCE.plusSeconds(60));
        assertThat(second.to()).as("a pod bound during the flip holds the drain").isEqualTo(DrainingPerformance);

        assertThat(guard.check(node(DrainingPerformance, List.of()), ActiveEco, POLICY, SINCE.plusSeconds(60)).to())
                .isEqualTo(ActiveEco);
    }

    @ParameterizedTest(name = "zero timeout with {0} escalates once the drain has lasted the settle time, never before")
    @EnumSource(Escalation.class)
    void zeroTimeoutEscalatesOnceTheSettleTimeHasPassed(Escalation escalation) {
        var guard = guard(escalation, Duration.ZERO);
        // the first step only starts the drain ...
        Transition first = guard.check(node(ActivePerformance, PODS), ActiveEco, POLICY, SINCE);
        assertThat(first.to()).isEqualTo(DrainingPerformance);
        var drainingNode = new ManagedNode("w1", java.util.Map.of(), false, first.to(), first.since(), PODS);
        // ... a recheck 100 ms later (a performance-only pod arriving) does not escalate yet ...
        Transition early = guard.check(drainingNode, ActiveEco, POLICY, SINCE.plusMillis(100));
        assertThat(early.outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(early.to()).isEqualTo(DrainingPerformance);
        assertThat(guard.check(drainingNode, ActiveEco, POLICY, SINCE.plus(SETTLE).minusMillis(1)).outcome())
                .isEqualTo(Outcome.BLOCKED);
        // ... the settle time after the drain's start it does
        Transition second = guard.check(drainingNode, ActiveEco, POLICY, SINCE.plus(SETTLE));
        assertThat(second.outcome()).isEqualTo(switch (escalation) {
            case HOLD -> Outcome.BLOCKED;
            case FORCE -> Outcome.FORCED;
            case EVICT -> Outcome.EVICTED;
        });
        assertThat(guard.escalationAfter()).isEqualTo(SETTLE);
        assertThat(guard(escalation, TIMEOUT).escalationAfter()).isEqualTo(TIMEOUT);
    }

    @Test
    void settleAndTimeoutCountFromTheLaterOfSinceAndWhenThisReplicaFirstSawTheState() {
        var guard = guard(FORCE, TIMEOUT);
        // the old leader's clock wrote since = SINCE; this replica, whose clock runs 40 minutes ahead, first saw the node
        // draining at SINCE + 40m on its own clock
        Instant seen = SINCE.plus(Duration.ofMinutes(40));
        ManagedNode quiet = node(DrainingPerformance, List.of()).withStateSeen(seen);
        assertThat(quiet.stateSinceHere()).isEqualTo(seen);
        assertThat(guard.commitAt(quiet)).isEqualTo(seen.plus(SETTLE));
        assertThat(guard.check(quiet, ActiveEco, POLICY, seen.plusSeconds(1)).to()).as("no early commit")
                .isEqualTo(DrainingPerformance);
        assertThat(guard.check(quiet, ActiveEco, POLICY, seen.plus(SETTLE)).to()).isEqualTo(ActiveEco);

        ManagedNode busy = node(DrainingPerformance, PODS).withStateSeen(seen);
        assertThat(guard.check(busy, ActiveEco, POLICY, seen.plusSeconds(1)).outcome()).as("no early force")
                .isEqualTo(Outcome.BLOCKED);
        assertThat(guard.check(busy, ActiveEco, POLICY, seen.plus(TIMEOUT)).outcome()).isEqualTo(Outcome.FORCED);
        // the verdict keeps the state's own since
        assertThat(guard.check(busy, ActiveEco, POLICY, seen.plusSeconds(1)).since()).isEqualTo(SINCE);

        // a sighting before since (this replica's clock behind) changes nothing; none at all neither
        ManagedNode behind = node(DrainingPerformance, List.of()).withStateSeen(SINCE.minusSeconds(30));
        assertThat(behind.stateSinceHere()).isEqualTo(SINCE);
        assertThat(guard.commitAt(behind)).isEqualTo(SINCE.plus(SETTLE));
        assertThat(node(DrainingPerformance, List.of()).stateSeen()).isNull();
        assertThat(guard.commitAt(node(DrainingPerformance, List.of()))).isEqualTo(SINCE.plus(SETTLE));
    }

    static Stream<Arguments> podLists() {
        return Stream.of(arguments(1, "1 performance-only pod"), arguments(2, "2 performance-only pods"),
                arguments(12, "12 performance-only pods"));
    }

    @ParameterizedTest(name = "{0} pods -> \"{1}\"")
    @MethodSource("podLists")
    void describePodsCountsAndNamesNone(int count, String expected) {
        List<String> pods = IntStream.range(0, count).mapToObj(i -> "ns/p" + i).toList();

        assertThat(StateGuard.describePods(pods)).isEqualTo(expected);
    }

    @Test
    void theEvictionListIsWholeWhileTheReasonNamesNoPod() {
        List<String> pods = IntStream.range(0, 8).mapToObj(i -> "ns/p" + i).toList();
        Transition t = guard(EVICT, TIMEOUT).check(node(DrainingPerformance, pods), ActiveEco, POLICY,
                SINCE.plus(Duration.ofHours(1)));

        assertThat(t.reason()).contains("8 performance-only pods").doesNotContain("ns/");
        assertThat(t.evict()).containsExactlyElementsOf(pods);
    }

    @Test
    void aFullDrainWalkThrough() {
        var guard = guard(EVICT, TIMEOUT);
        ManagedNode n = node(ActivePerformance, PODS);

        Transition t1 = guard.check(n, ActiveEco, POLICY, SINCE.plusSeconds(10));
        assertThat(t1.to()).isEqualTo(DrainingPerformance);
        Instant drainStart = t1.since();

        n = new ManagedNode("w1", java.util.Map.of(), false, t1.to(), t1.since(), PODS);
        Transition t2 = guard.check(n, ActiveEco, POLICY, drainStart.plus(Duration.ofMinutes(10)));
        assertThat(t2.outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(t2.since()).isEqualTo(drainStart);

        Transition t3 = guard.check(n, ActiveEco, POLICY, drainStart.plus(Duration.ofMinutes(31)));
        assertThat(t3.outcome()).isEqualTo(Outcome.EVICTED);
        assertThat(t3.since()).isEqualTo(drainStart);

        Instant gone = drainStart.plus(Duration.ofMinutes(32));
        n = new ManagedNode("w1", java.util.Map.of(), false, t3.to(), t3.since(), List.of()).withLastPerformancePod(gone);
        assertThat(guard.check(n, ActiveEco, POLICY, gone.plus(SETTLE).minusMillis(1)).to())
                .as("the settle time counts from the last performance-only pod seen").isEqualTo(DrainingPerformance);
        Instant done = gone.plus(SETTLE);
        Transition t4 = guard.check(n, ActiveEco, POLICY, done);
        assertThat(t4.to()).isEqualTo(ActiveEco);
        assertThat(t4.outcome()).isEqualTo(Outcome.COMPLETED);
        assertThat(t4.since()).isEqualTo(done);
    }
}
