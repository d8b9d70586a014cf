package io.joulie.operator.runtime;

import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.operator.config.EffectivePolicy;
import io.joulie.operator.metrics.EnergyMetrics;
import io.joulie.operator.metrics.PlannerMetrics;
import io.joulie.operator.metrics.RuleMetrics;
import io.joulie.planner.ActuationAdapter;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.ContextProvider;
import io.joulie.planner.ManagedNode;
import io.joulie.planner.NodeAssignment;
import io.joulie.planner.Planner;
import io.joulie.planner.PlannerSettings;
import io.joulie.testkit.FakeClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rescue does not wait for a tick (decision 166): while a tick is held in its snapshot (a slow Prometheus), or in a
 * node write (a slow API server), the watchdog's recheck of a node running a performance-only pod under the eco cap
 * writes the performance cap at once, on another thread.
 */
class PlannerLoopRescueTest {
    static final PlannerSettings SETTINGS = PlannerSettings.defaults();

    /** The settings the loop plans with: static partition at half by default. */
    PlannerSettings settings = SETTINGS;

    final FakeClock clock = new FakeClock();
    final List<String> writes = Collections.synchronizedList(new ArrayList<>());
    final CountDownLatch tickHeld = new CountDownLatch(1);
    final CountDownLatch releaseTick = new CountDownLatch(1);
    /** Threads of their own for the tick and the recheck (the common pool may have a single thread here). */
    final ExecutorService threads = Executors.newCachedThreadPool();
    volatile boolean holdInSnapshot;
    /** Whether the cluster also has a node whose drain may commit eco. */
    volatile boolean withDrained;
    volatile boolean holdInWrite;
    /** When this replica saw the drained node's drain (null: no sighting of its own). */
    volatile java.time.Instant drainedSeenHere;

    /** One eco node ("eco") running a performance-only pod, one performance node ("perf"). */
    ClusterContext context() {
        ManagedNode eco = new ManagedNode("eco", Map.of(JoulieApi.POWER_PROFILE_LABEL, "eco"), false, PowerState.ActiveEco,
                clock.instant(), List.of("team/trainer"));
        ManagedNode perf = new ManagedNode("perf", Map.of(JoulieApi.POWER_PROFILE_LABEL, "performance"), false,
                PowerState.ActivePerformance, clock.instant(), List.of());
        ManagedNode drained = new ManagedNode("drained", Map.of(JoulieApi.POWER_PROFILE_LABEL, "draining-performance"), false,
                PowerState.DrainingPerformance, clock.instant().minusSeconds(600), List.of()).withStateSeen(drainedSeenHere);
        return new ClusterContext(clock.instant(), withDrained ? List.of(perf, eco, drained) : List.of(perf, eco), 1);
    }

    final ContextProvider provider = new ContextProvider() {
        @Override
        public ClusterContext snapshot(Duration telemetryBudget) {
            if (holdInSnapshot) {
                hold();
            }
            return context();
        }

        @Override
        public ClusterContext snapshotOf(Collection<String> nodes) {
            ClusterContext all = context();
            return new ClusterContext(all.now(), all.nodes().stream().filter(n -> nodes.contains(n.name())).toList(), 1);
        }
    };

    void hold() {
        tickHeld.countDown();
        try {
            releaseTick.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    final ActuationAdapter actuation = new ActuationAdapter() {
        @Override
        public boolean apply(NodeAssignment a) {
            if (holdInWrite && a.node().equals("perf")) {
                hold();
            }
            writes.add(a.node() + " " + a.state() + " " + a.profile().value());
            return true;
        }

        @Override
        public boolean release(String node) {
            return true;
        }

        @Override
        public EvictionResult evict(String pod) {
            return EvictionResult.EVICTED;
        }
    };

    @AfterEach
    void release() {
        releaseTick.countDown();
        threads.shutdownNow();
    }

    PlannerLoop loop() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PlannerMetrics metrics = new PlannerMetrics(registry);
        RecordingEvents events = new RecordingEvents();
        TickGate gate = new TickGate(() -> true, List::of, listener -> { });
        PolicyReloader policy = new PolicyReloader(new Planner(settings), Optional.empty(), new EffectivePolicy(settings),
                () -> null, config -> { }, events);
        PlanExecutor executor = new PlanExecutor(actuation, name -> null, events, metrics, () -> true, 1, clock);
        TickRecorder recorder = new TickRecorder(metrics, new RuleMetrics(registry), new PlannerStatus(), events, clock);
        ContractLedger ledger = new ContractLedger(metrics, events, clock, pod -> null);
        return new PlannerLoop(gate, policy, provider, executor, recorder, ledger, new EnergyMetrics(registry, node -> 0.0));
    }

    @Test
    void aRescueIsWrittenWhileATickIsHeldReadingTelemetry() throws Exception {
        PlannerLoop loop = loop();
        holdInSnapshot = false;
        assertThat(loop.tick()).as("a first tick plans this term").isTrue();
        writes.clear();

        holdInSnapshot = true;
        CompletableFuture<Boolean> tick = CompletableFuture.supplyAsync(loop::tick, threads);
        assertThat(tickHeld.await(10, TimeUnit.SECONDS)).isTrue();

        CompletableFuture<PlannerLoop.Recheck> recheck = CompletableFuture.supplyAsync(() -> loop.recheck(List.of("eco")), threads);
        assertThat(recheck.get(5, TimeUnit.SECONDS)).as("the recheck does not wait for the held tick")
                .isEqualTo(PlannerLoop.Recheck.RAN);
        assertThat(writes).containsExactly("eco DrainingPerformance performance");
        assertThat(tick).isNotDone();

        releaseTick.countDown();
        assertThat(tick.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aRescueIsWrittenWhileATickIsHeldInAnotherNodesWrite() throws Exception {
        PlannerLoop loop = loop();
        assertThat(loop.tick()).isTrue();
        writes.clear();

        holdInWrite = true;
        CompletableFuture<Boolean> tick = CompletableFuture.supplyAsync(loop::tick, threads);
        assertThat(tickHeld.await(10, TimeUnit.SECONDS)).isTrue();

        holdInWrite = false;
        CompletableFuture<PlannerLoop.Recheck> recheck = CompletableFuture.supplyAsync(() -> loop.recheck(List.of("eco")), threads);
        assertThat(recheck.get(5, TimeUnit.SECONDS)).isEqualTo(PlannerLoop.Recheck.RAN);
        assertThat(writes).as("the tick's own write of the node waits behind its write of the other")
                .containsExactly("eco DrainingPerformance performance");
        assertThat(tick).isNotDone();

        releaseTick.countDown();
        assertThat(tick.get(10, TimeUnit.SECONDS)).isTrue();
    }

    /**
     * A drain whose writer's since is long past but which this replica saw only a second ago commits a settle time after
     * that sighting: the watchdog is woken then, not at once (woken at the writer's moment, the recheck found the drain
     * still settling and was woken again at once, a busy loop: 11 s of CPU after the first plan of 200 nodes).
     */
    @Test
    void aDrainSeenHereLateIsWokenWhenTheGuardWillCommitItNotAtOnce() {
        withDrained = true;
        settings = SETTINGS.toBuilder().staticHpFrac(0).build(); // every node without a performance-only pod eco
        drainedSeenHere = clock.instant().minusSeconds(1);
        PlannerLoop loop = loop();
        List<Map<String, java.time.Instant>> wakeups = Collections.synchronizedList(new ArrayList<>());
        loop.wakeupsTo(wakeups::add);
        assertThat(loop.tick()).isTrue();
        assertThat(loop.recheck(List.of("drained"))).isEqualTo(PlannerLoop.Recheck.RAN);

        java.time.Instant commit = drainedSeenHere.plus(SETTINGS.settleTime());
        assertThat(writes).as("still settling by this replica's sighting").noneMatch(w -> w.startsWith("drained ActiveEco"));
        assertThat(wakeups).as("the tick and the recheck each ask to look at it again").hasSize(2)
                .allSatisfy(w -> assertThat(w).containsEntry("drained", commit));

        clock.advance(SETTINGS.settleTime());
        assertThat(loop.recheck(List.of("drained"))).isEqualTo(PlannerLoop.Recheck.RAN);
        assertThat(writes).as("committed once the settle time has passed since the sighting")
                .contains("drained ActiveEco eco");
    }

    /**
     * A drain whose commit is due but which the transition budget defers is woken when the budget has room again, not at
     * once (at its past commit moment every recheck found it deferred and was woken again at once: after a first plan
     * that had spent the budget, the watchdog spun until the budget refilled).
     */
    @Test
    void aCommitDeferredByTheTransitionBudgetIsWokenWhenTheBudgetHasRoom() {
        withDrained = true;
        // one state change per interval: the rescue of "eco" takes it, the commit of "drained" waits
        settings = SETTINGS.toBuilder().staticHpFrac(0).maxTransitionsPerTick(1).build();
        PlannerLoop loop = loop();
        List<Map<String, java.time.Instant>> wakeups = Collections.synchronizedList(new ArrayList<>());
        loop.wakeupsTo(wakeups::add);
        assertThat(loop.tick()).isTrue();

        assertThat(writes).as("the rescue goes, the commit is deferred").contains("eco DrainingPerformance performance")
                .noneMatch(w -> w.startsWith("drained ActiveEco"));
        assertThat(wakeups).hasSize(1);
        assertThat(wakeups.getFirst()).as("looked at again when the budget has room for one more")
                .containsEntry("drained", clock.instant().plus(settings.reconcileInterval()));
    }

    @Test
    void beforeTheFirstTickOfATermARecheckRescuesButCommitsNothing() throws Exception {
        withDrained = true;
        PlannerLoop loop = loop();
        holdInSnapshot = true;
        CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(loop::tick, threads);
        assertThat(tickHeld.await(10, TimeUnit.SECONDS)).isTrue();

        assertThat(loop.recheck(List.of("eco", "drained"))).isEqualTo(PlannerLoop.Recheck.RAN);
        assertThat(writes).as("the rescue, not the commit of the drained node (that waits for the tick)")
                .containsExactly("eco DrainingPerformance performance");

        releaseTick.countDown();
        assertThat(first.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(writes).as("the tick decides about it").anyMatch(w -> w.startsWith("drained "));
    }
}
