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
    final PlanExecutor executor = new PlanExecutor(actuation, holders::get, events, new PlannerMetrics(registry),
            leading::get, 1);

    /** Records every call in order; answers evictions from a table; fails on the nodes named in {@code failing}. */
    static final class Actuation implements ActuationAdapter {
        final List<String> calls = Collections.synchronizedList(new ArrayList<>());
        final Map<String, EvictionResult> evictions = new HashMap<>();
        final Set<String> failing = new HashSet<>();

        @Override
        public boolean apply(NodeAssignment a) {
            calls.add("apply " + a.node() + " " + a.state() + " " + (a.cpu().packagePowerCapWatts() != null
                    ? a.cpu().packagePowerCapWatts() + " W" : a.cpu().packagePowerCapPercent() + " %"));
            if (failing.contains(a.node())) {
                throw new IllegalStateException("API server said no");
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
        return new Planner.TickPlan(new Plan("static-partition-v1", targets, 0, "test"), transitions, List.of(released));
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
        assertThat(actuation.calls).containsExactly("apply b ActivePerformance 100.0 %", "apply a DrainingPerformance 100.0 %",
                "apply c ActivePerformance 100.0 %", "release gone");
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

        assertThat(result).isEqualTo(new PlanExecutor.Result(2, false));
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
                "node/a PodsEvicted: Evicted performance-only pods to complete the downgrade: work/pa",
                "node/a EvictionRefused: Eviction refused or failed (retried every tick): work/pz");

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
}
