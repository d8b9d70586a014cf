package io.joulie.operator.runtime;

import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.operator.cluster.EventReason;
import io.joulie.operator.metrics.PlannerMetrics;
import io.joulie.planner.ActuationAdapter;
import io.joulie.planner.NodeAssignment;
import io.joulie.planner.Outcome;
import io.joulie.planner.Plan;
import io.joulie.planner.Planner;
import io.joulie.planner.PlannerSettings;
import io.joulie.planner.Transition;
import io.joulie.testkit.FakeClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.joulie.api.v1alpha1.PowerState.ActiveEco;
import static io.joulie.api.v1alpha1.PowerState.ActivePerformance;
import static io.joulie.api.v1alpha1.PowerState.DrainingPerformance;
import static org.assertj.core.api.Assertions.assertThat;

/** The plan executor against an in-memory actuation: no API server, no clock. */
class PlanExecutorTest {
    static final Instant T = Instant.parse("2026-11-21T12:00:00Z");
    static final PlannerSettings SETTINGS = PlannerSettings.defaults();

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final RecordingEvents events = new RecordingEvents();
    final Actuation actuation = new Actuation();
    final Map<String, String> holders = new HashMap<>();
    final AtomicBoolean leading = new AtomicBoolean(true);
    final FakeClock clock = new FakeClock();
    final PlanExecutor executor = new PlanExecutor(actuation, holders::get, events, new PlannerMetrics(registry),
            leading::get, 1, clock);

    /** Records every call in order; answers evictions from a table; fails on the nodes named in {@code failing}. */
    static final class Actuation implements ActuationAdapter {
        final List<String> calls = Collections.synchronizedList(new ArrayList<>());
        final Map<String, EvictionResult> evictions = new HashMap<>();
        final Set<String> failing = new HashSet<>();
        final Set<String> stale = new HashSet<>();
        /** Runs before each apply (a write that takes time). */
        Runnable during = () -> { };

        @Override
        public boolean apply(NodeAssignment a) {
            calls.add("apply " + a.node() + " " + a.state() + " " + (a.cpu().packagePowerCapWatts() != null
                    ? a.cpu().packagePowerCapWatts() + " W" : a.cpu().packagePowerCapPercent() + " %"));
            during.run();
            if (failing.contains(a.node())) {
                throw new IllegalStateException("API server said no");
            }
            if (stale.contains(a.node())) {
                throw new io.joulie.operator.cluster.KubernetesActuator.StaleDecision("the cache moved on");
            }
            return true;
        }

        @Override
        public boolean release(String node) {
            calls.add("release " + node);
            if (failing.contains(node)) {
                throw new IllegalStateException("API server said no");
            }
            return true;
        }

        @Override
        public EvictionResult evict(String pod) {
            calls.add("evict " + pod);
            return evictions.getOrDefault(pod, EvictionResult.EVICTED);
        }
    }

    static Transition t(String node, PowerState from, PowerState to, Outcome outcome, String... evict) {
        PowerState requested = to == ActivePerformance ? ActivePerformance : ActiveEco;
        return new Transition(node, from, requested, to, T, outcome, "because", List.of(evict));
    }

    static Planner.TickPlan plan(List<Transition> transitions, String... released) {
        Map<String, Profile> targets = new HashMap<>();
        transitions.forEach(x -> targets.put(x.node(), x.requested() == ActiveEco ? Profile.ECO : Profile.PERFORMANCE));
        return new Planner.TickPlan(new Plan("static_partition", targets, 0, "test"), transitions, List.of(released));
    }

    double counter(String name, String... tags) {
        var search = registry.find(name).tags(tags);
        return search.counters().stream().mapToDouble(c -> c.count()).sum();
    }

    @Test
    void raisesGoFirstThenTheRestThenTheReleases() {
        var result = executor.execute(plan(List.of(
                t("a", ActivePerformance, DrainingPerformance, Outcome.COMPLETED),
                t("b", ActiveEco, ActivePerformance, Outcome.COMPLETED),
                t("c", ActivePerformance, ActivePerformance, Outcome.STEADY)), "gone"), SETTINGS);

        assertThat(result).isEqualTo(new PlanExecutor.Result(0, false));
        // a node that stays performance goes with the raises: its label may follow its agent's confirmation
        assertThat(actuation.calls).containsExactly("apply b ActivePerformance 100.0 %", "apply c ActivePerformance 100.0 %",
                "apply a DrainingPerformance 100.0 %", "release gone");
        assertThat(events.recorded).containsExactly(
                "node/b PowerStateChanged: ActiveEco -> ActivePerformance: because",
                "node/a PowerStateChanged: ActivePerformance -> DrainingPerformance: because");
        assertThat(counter("joulie.transitions", "from", "ActivePerformance", "to", "DrainingPerformance", "outcome", "completed"))
                .isEqualTo(1);
        assertThat(counter("joulie.transitions")).as("a steady node is no transition").isEqualTo(2);
    }

    @Test
    void aForcedDowngradeIsAWarning() {
        executor.execute(plan(List.of(t("a", DrainingPerformance, ActiveEco, Outcome.FORCED))), SETTINGS);

        assertThat(actuation.calls).containsExactly("apply a ActiveEco 60.0 %");
        assertThat(events.recorded).containsExactly("node/a DowngradeForced: DrainingPerformance -> ActiveEco: because");
        assertThat(EventReason.DowngradeForced.type()).isEqualTo(EventReason.Type.Warning);
    }

    @Test
    void oneFailingNodeIsCountedAndTheOthersAreWritten() {
        actuation.failing.add("b");
        actuation.failing.add("gone");
        var result = executor.execute(plan(List.of(
                t("a", ActivePerformance, DrainingPerformance, Outcome.COMPLETED),
                t("b", ActivePerformance, DrainingPerformance, Outcome.COMPLETED),
                t("c", ActivePerformance, DrainingPerformance, Outcome.COMPLETED)), "gone"), SETTINGS);

        assertThat(result.failures()).isEqualTo(2);
        assertThat(result.interrupted()).isFalse();
        assertThat(result.retries()).as("the failed node is backed off; a release is not").containsOnlyKeys("b");
        assertThat(actuation.calls).contains("apply a DrainingPerformance 100.0 %", "apply c DrainingPerformance 100.0 %");
        assertThat(counter("joulie.errors", "kind", "node")).isEqualTo(1);
        assertThat(counter("joulie.errors", "kind", "release")).isEqualTo(1);
        assertThat(events.recorded).as("no Event for the write that failed").noneMatch(e -> e.startsWith("node/b"));
    }

    @Test
    void noWriteStartsOnceTheLeaseIsLost() {
        leading.set(false);
        var result = executor.execute(plan(List.of(t("a", ActiveEco, ActivePerformance, Outcome.COMPLETED)), "gone"), SETTINGS);

        assertThat(result.interrupted()).isTrue();
        assertThat(actuation.calls).isEmpty();
    }

    @Test
    void collidingNamesLeaveTheProfileWithTheNodeItNames() {
        // "a-b" and "a.b" both map to node-a-b, whose existing profile names "a.b"
        holders.put("node-a-b", "a.b");
        var result = executor.execute(plan(List.of(
                t("a-b", ActivePerformance, DrainingPerformance, Outcome.COMPLETED),
                t("a.b", ActivePerformance, DrainingPerformance, Outcome.COMPLETED))), SETTINGS);

        assertThat(result.failures()).isEqualTo(1);
        assertThat(actuation.calls).containsExactly("apply a.b DrainingPerformance 100.0 %");
        assertThat(counter("joulie.errors", "kind", "node")).isEqualTo(1);

        holders.clear(); // no profile yet: the first in the plan gets it
        actuation.calls.clear();
        executor.execute(plan(List.of(
                t("a-b", ActivePerformance, DrainingPerformance, Outcome.COMPLETED),
                t("a.b", ActivePerformance, DrainingPerformance, Outcome.COMPLETED))), SETTINGS);
        assertThat(actuation.calls).containsExactly("apply a-b DrainingPerformance 100.0 %");
    }

    @Test
    void evictionsComeBeforeTheWriteAndARefusalIsAWarningOncePerChange() {
        actuation.evictions.put("work/pz", ActuationAdapter.EvictionResult.REFUSED);
        Transition evicting = t("a", DrainingPerformance, DrainingPerformance, Outcome.EVICTED, "work/pa", "work/pz");

        var first = executor.execute(plan(List.of(evicting)), SETTINGS);
        assertThat(first.failures()).as("a refusal is retried, not a failure").isZero();
        assertThat(actuation.calls).containsExactly("evict work/pa", "evict work/pz", "apply a DrainingPerformance 100.0 %");
        assertThat(events.recorded).containsExactly(
                "node/a PodsEvicted: Evicted 1 performance-only pod to complete the downgrade (named in the operator's log)",
                "node/a EvictionRefused: Eviction refused or failed for 1 performance-only pod (retried every tick; named in the"
                        + " operator's log)");

        // the budget keeps refusing pz: no new Warning
        executor.execute(plan(List.of(t("a", DrainingPerformance, DrainingPerformance, Outcome.EVICTED, "work/pz"))), SETTINGS);
        assertThat(events.of(EventReason.EvictionRefused)).hasSize(1);
        assertThat(counter("joulie.evictions", "result", "refused")).isEqualTo(2);

        // the node stops evicting, then refuses again: a new episode, a new Warning
        executor.execute(plan(List.of(t("a", DrainingPerformance, DrainingPerformance, Outcome.BLOCKED))), SETTINGS);
        executor.execute(plan(List.of(t("a", DrainingPerformance, DrainingPerformance, Outcome.EVICTED, "work/pz"))), SETTINGS);
        assertThat(events.of(EventReason.EvictionRefused)).hasSize(2);
    }

    @Test
    void aFailedEvictionCallFailsTheNodeAndANodeThatLeftIsForgotten() {
        actuation.evictions.put("work/pa", ActuationAdapter.EvictionResult.FAILED);
        var result = executor.execute(plan(List.of(t("a", DrainingPerformance, DrainingPerformance, Outcome.EVICTED, "work/pa"))),
                SETTINGS);
        assertThat(result.failures()).isEqualTo(1);
        assertThat(events.of(EventReason.EvictionRefused)).hasSize(1);

        executor.execute(plan(List.of()), SETTINGS); // node a left the plan: its memory goes
        executor.execute(plan(List.of(t("a", DrainingPerformance, DrainingPerformance, Outcome.EVICTED, "work/pa"))), SETTINGS);
        assertThat(events.of(EventReason.EvictionRefused)).hasSize(2);
    }

    @Test
    void aNodeWhoseWritesKeepFailingIsBackedOffExponentiallyButARescueIsAlwaysTried() {
        actuation.failing.add("b");
        Transition drain = t("b", ActivePerformance, DrainingPerformance, Outcome.COMPLETED);

        assertThat(executor.execute(plan(List.of(drain)), SETTINGS).retries()).containsEntry("b", T.plusSeconds(1));
        clock.advance(java.time.Duration.ofMillis(999));
        var skipped = executor.execute(plan(List.of(drain)), SETTINGS);
        assertThat(skipped.failures()).as("not tried before its time").isZero();
        assertThat(skipped.retries()).containsEntry("b", T.plusSeconds(1));
        assertThat(actuation.calls).hasSize(1);

        clock.advance(java.time.Duration.ofMillis(1));
        assertThat(executor.execute(plan(List.of(drain)), SETTINGS).retries()).as("2 s after the second failure")
                .containsEntry("b", T.plusSeconds(3));
        clock.advance(java.time.Duration.ofSeconds(2));
        assertThat(executor.execute(plan(List.of(drain)), SETTINGS).retries()).containsEntry("b", T.plusSeconds(3 + 4));
        assertThat(actuation.calls).hasSize(3);
        assertThat(registry.get("joulie.nodes.backing.off").gauge().value()).isEqualTo(1);

        // a rescue is not held back
        executor.execute(plan(List.of(t("b", ActiveEco, DrainingPerformance, Outcome.RESCUED))), SETTINGS);
        assertThat(actuation.calls).hasSize(4);

        // once a write succeeds the node is written as usual again
        actuation.failing.clear();
        clock.advance(java.time.Duration.ofSeconds(8));
        assertThat(executor.execute(plan(List.of(drain)), SETTINGS).retries()).isEmpty();
        assertThat(executor.execute(plan(List.of(drain)), SETTINGS).retries()).isEmpty();
        assertThat(actuation.calls).hasSize(6);
        assertThat(registry.get("joulie.nodes.backing.off").gauge().value()).isZero();
    }

    @Test
    void aForcedCommitIsAlwaysTriedAndTriedAgainAfterASecondWhateverTheBackoff() {
        // its eco cap may have landed before the record of the pods it leaves there failed: the contract waits for it
        actuation.failing.add("b");
        Transition drain = t("b", ActivePerformance, DrainingPerformance, Outcome.COMPLETED);
        for (int i = 0; i < 4; i++) {
            clock.advance(java.time.Duration.between(clock.instant(),
                    executor.execute(plan(List.of(drain)), SETTINGS).retries().get("b")));
        }
        var failed = executor.execute(plan(List.of(drain)), SETTINGS);
        assertThat(java.time.Duration.between(clock.instant(), failed.retries().get("b"))).as("backed off 16 s")
                .isEqualTo(java.time.Duration.ofSeconds(16));
        int calls = actuation.calls.size();

        Transition forced = t("b", DrainingPerformance, ActiveEco, Outcome.FORCED);
        var r = executor.execute(plan(List.of(forced)), SETTINGS);
        assertThat(actuation.calls).as("tried within the backoff").hasSize(calls + 1);
        assertThat(r.retries()).containsEntry("b", clock.instant().plus(PlanExecutor.BACKOFF_BASE));
        assertThat(executor.recheck(plan(List.of(forced)), SETTINGS).retries())
                .containsEntry("b", clock.instant().plus(PlanExecutor.BACKOFF_BASE));
        assertThat(actuation.calls).hasSize(calls + 2);
    }

    @Test
    void backoffTopsOutAtFiveMinutes() {
        actuation.failing.add("b");
        Transition drain = t("b", ActivePerformance, DrainingPerformance, Outcome.COMPLETED);
        java.time.Instant last = null;
        for (int i = 0; i < 12; i++) {
            var r = executor.execute(plan(List.of(drain)), SETTINGS);
            last = r.retries().get("b");
            clock.advance(java.time.Duration.between(clock.instant(), last));
        }
        var r = executor.execute(plan(List.of(drain)), SETTINGS);
        assertThat(java.time.Duration.between(clock.instant(), r.retries().get("b"))).isEqualTo(PlanExecutor.BACKOFF_MAX);
    }

    @Test
    void atMostTheEvictionBudgetIsEvictedPerReconcileIntervalTheRestWaits() {
        var settings = SETTINGS.toBuilder().maxEvictionsPerTick(2).reconcileInterval(java.time.Duration.ofMinutes(1)).build();
        executor.execute(plan(List.of(t("a", DrainingPerformance, DrainingPerformance, Outcome.EVICTED, "w/p1", "w/p2"),
                t("b", DrainingPerformance, DrainingPerformance, Outcome.EVICTED, "w/p3"))), settings);

        assertThat(actuation.calls).filteredOn(c -> c.startsWith("evict")).containsExactly("evict w/p1", "evict w/p2");
        assertThat(counter("joulie.evictions", "result", "deferred")).isEqualTo(1);
        assertThat(events.of(EventReason.EvictionRefused)).as("waiting for the budget is no refusal").isEmpty();

        // an extra tick a second later (run outside the schedule) finds the interval's budget spent
        clock.advance(java.time.Duration.ofSeconds(1));
        executor.execute(plan(List.of(t("b", DrainingPerformance, DrainingPerformance, Outcome.EVICTED, "w/p3"))), settings);
        assertThat(actuation.calls).doesNotContain("evict w/p3");
        assertThat(counter("joulie.evictions", "result", "deferred")).isEqualTo(2);

        // half an interval on, one eviction's worth is back
        clock.advance(java.time.Duration.ofSeconds(29));
        executor.execute(plan(List.of(t("b", DrainingPerformance, DrainingPerformance, Outcome.EVICTED, "w/p3"))), settings);
        assertThat(actuation.calls).contains("evict w/p3");
    }

    @Test
    void aWriteThatFindsTheLeaseLostStopsTheTick() {
        ActuationAdapter fenced = new ActuationAdapter() {
            @Override
            public boolean apply(NodeAssignment a) {
                actuation.calls.add("apply " + a.node());
                if (a.node().equals("b")) {
                    throw new io.joulie.operator.cluster.LeadershipLost();
                }
                return true;
            }

            @Override
            public boolean release(String node) {
                actuation.calls.add("release " + node);
                return true;
            }

            @Override
            public EvictionResult evict(String pod) {
                return EvictionResult.EVICTED;
            }
        };
        var stopped = new PlanExecutor(fenced, holders::get, events, new PlannerMetrics(registry), () -> true, 1, clock);

        var r = stopped.execute(plan(List.of(t("a", ActiveEco, ActivePerformance, Outcome.COMPLETED),
                t("b", ActiveEco, ActivePerformance, Outcome.COMPLETED), t("c", ActiveEco, ActivePerformance, Outcome.COMPLETED),
                t("d", ActivePerformance, DrainingPerformance, Outcome.COMPLETED)), "gone"), SETTINGS);

        assertThat(r.interrupted()).isTrue();
        assertThat(r.failures()).as("losing the Lease is no failure of the node").isZero();
        assertThat(actuation.calls).containsExactly("apply a", "apply b");
        assertThat(counter("joulie.errors", "kind", "node")).isZero();
    }

    @Test
    void aRecheckWritesRescuesCommitsAndLabelsButNoBlockedDrainOrEviction() {
        executor.recheck(plan(List.of(t("a", ActiveEco, DrainingPerformance, Outcome.RESCUED),
                t("b", DrainingPerformance, ActiveEco, Outcome.COMPLETED),
                t("c", ActivePerformance, ActivePerformance, Outcome.STEADY),
                t("d", DrainingPerformance, DrainingPerformance, Outcome.BLOCKED),
                t("e", DrainingPerformance, DrainingPerformance, Outcome.EVICTED, "w/p"),
                t("f", DrainingPerformance, ActiveEco, Outcome.FORCED),
                // a drain or a raise the recheck found (Planner.recheck defers them to the next tick), a held rescue
                t("g", ActivePerformance, ActivePerformance, Outcome.DEFERRED),
                t("h", ActiveEco, ActiveEco, Outcome.HELD))), SETTINGS);

        assertThat(actuation.calls).containsExactly("apply a DrainingPerformance 100.0 %", "apply c ActivePerformance 100.0 %",
                "apply b ActiveEco 60.0 %", "apply f ActiveEco 60.0 %");
        assertThat(counter("joulie.transitions", "outcome", "blocked")).as("a blocked drain is counted by ticks only").isZero();
        assertThat(counter("joulie.transitions", "outcome", "rescued")).isEqualTo(1);
    }

    @Test
    void aDecisionMadeOnAViewThatMovedOnIsLookedAtAgainSoonAndIsNoFailure() {
        actuation.stale.add("a");
        var first = executor.execute(plan(List.of(t("a", ActivePerformance, DrainingPerformance, Outcome.COMPLETED))), SETTINGS);
        assertThat(first.failures()).isZero();
        assertThat(first.retries()).containsEntry("a", clock.instant().plus(PlanExecutor.STALE_RETRY));
        assertThat(counter("joulie.errors", "kind", "node")).isZero();

        // not backed off: the next look writes it at once
        actuation.stale.clear();
        actuation.calls.clear();
        var second = executor.recheck(plan(List.of(t("a", ActivePerformance, DrainingPerformance, Outcome.COMPLETED))), SETTINGS);
        assertThat(second.retries()).isEmpty();
        assertThat(actuation.calls).containsExactly("apply a DrainingPerformance 100.0 %");
    }

    @Test
    void noNodeWriteStartsAfterTheTicksDeadlineAndTheWatchdogLooksAtTheRestAtOnce() {
        Instant deadline = clock.instant().plusSeconds(60);
        actuation.during = () -> clock.advance(java.time.Duration.ofSeconds(40)); // each write takes 40 s (a slow webhook)
        var result = executor.execute(plan(List.of(
                t("a", ActiveEco, ActivePerformance, Outcome.COMPLETED),
                t("b", ActivePerformance, DrainingPerformance, Outcome.COMPLETED),
                t("c", ActivePerformance, DrainingPerformance, Outcome.COMPLETED),
                t("d", ActivePerformance, DrainingPerformance, Outcome.COMPLETED))), SETTINGS, deadline);
        assertThat(actuation.calls).as("two writes start before the deadline").hasSize(2);
        assertThat(result.unwritten()).isEqualTo(2);
        assertThat(result.failures()).isZero();
        assertThat(result.retries()).as("the nodes not written are looked at when the deadline stopped them")
                .containsOnlyKeys("c", "d");
    }
}
