package io.joulie.agent.runtime;

import io.joulie.agent.k8s.NodeLabeller;
import io.joulie.agent.metrics.AgentMetrics;
import io.joulie.testkit.FakeClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The loop on a clock the test moves: what runs when, without a thread (but the last test) and without waiting. */
class AgentLoopTest {
    static final Duration INTERVAL = Duration.ofSeconds(20);

    final FakeClock clock = new FakeClock();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final AgentMetrics metrics = new AgentMetrics(registry);
    final WorkQueue<AgentLoop.Task> queue = new WorkQueue<>(clock::nanoTime);
    final Recorder reconciler = new Recorder();
    final List<Map<String, String>> patches = new ArrayList<>();
    final NodeLabeller labeller = new NodeLabeller("a", Map.of("feature.joulie.io/rapl", "true"), new NodeLabeller.Nodes() {
        @Override
        public Optional<Map<String, String>> labels(String node) {
            return Optional.of(Map.of());
        }

        @Override
        public void mergeLabels(String node, Map<String, String> labels) {
            patches.add(labels);
        }
    }, metrics);
    final AgentLoop loop = new AgentLoop(queue, reconciler, Optional.of(labeller), metrics, clock, INTERVAL);

    /** Records reconciles as "node" (an event) or "node periodic"; a node in {@code failing} throws. */
    static final class Recorder implements AgentLoop.Reconciler {
        final Set<String> nodes = new LinkedHashSet<>(List.of("a", "b"));
        final List<String> calls = new CopyOnWriteArrayList<>();
        final Set<String> failing = new LinkedHashSet<>();

        @Override
        public Set<String> nodesToVisit() {
            return nodes;
        }

        @Override
        public void reconcile(String node, boolean periodic) {
            calls.add(periodic ? node + " periodic" : node);
            if (failing.contains(node)) {
                throw new IllegalStateException("reconcile of " + node + " failed");
            }
        }
    }

    void synced() {
        loop.watchesSynced();
        loop.runDue();
        reconciler.calls.clear();
    }

    @Test
    void nothingIsReconciledBeforeTheWatchesSyncedThenEveryNodeAndTheNodeIsLabelled() {
        loop.nodeChanged("a");
        loop.everyNodeChanged();
        loop.runDue();
        assertThat(reconciler.calls).isEmpty();
        assertThat(patches).isEmpty();

        loop.watchesSynced();
        loop.runDue();
        assertThat(reconciler.calls).containsExactly("a", "b");
        assertThat(patches).containsExactly(Map.of("feature.joulie.io/rapl", "true"));
    }

    /** An event's reconcile is due the moment the event arrives: the cap does not wait for the periodic pass. */
    @Test
    void anEventReconcilesItsNodeAtOnce() {
        synced();
        loop.nodeChanged("b");
        assertThat(queue.untilNext()).contains(Duration.ZERO);
        assertThat(loop.runDue()).isEqualTo(1);
        assertThat(reconciler.calls).containsExactly("b");
    }

    @Test
    void eventsForANodeThatIsAlreadyQueuedReconcileItOnce() {
        synced();
        loop.nodeChanged("a");
        loop.nodeChanged("a");
        loop.everyNodeChanged();
        loop.runDue();
        assertThat(reconciler.calls).containsExactly("a", "b");
    }

    @Test
    void everyIntervalEveryNodeIsReconciledAgainAndThePassIsRecorded() {
        synced();
        clock.advance(INTERVAL.minusMillis(1));
        assertThat(loop.runDue()).isZero();
        assertThat(loop.lastPeriodic()).isNull();

        clock.advance(Duration.ofMillis(1));
        loop.runDue();
        assertThat(reconciler.calls).containsExactly("a periodic", "b periodic");
        assertThat(loop.lastPeriodic()).isEqualTo(clock.instant());
        assertThat(registry.get("joulie.agent.last.reconcile.timestamp.seconds").gauge().value())
                .isEqualTo(clock.instant().getEpochSecond());
        assertThat(queue.untilNext()).contains(INTERVAL);
    }

    /** Liveness counts periodic passes: an agent whose watches never sync must not look alive. */
    @Test
    void beforeTheWatchesSyncedAPeriodicPassDoesNothingAndIsNotRecordedButComesAgain() {
        clock.advance(INTERVAL);
        loop.runDue();
        assertThat(reconciler.calls).isEmpty();
        assertThat(loop.lastPeriodic()).isNull();
        assertThat(queue.untilNext()).contains(INTERVAL);
    }

    @Test
    void aFailingReconcileIsCountedAndTheOtherNodesStillRun() {
        reconciler.failing.add("a");
        synced();
        loop.everyNodeChanged();
        loop.runDue();
        assertThat(reconciler.calls).containsExactly("a", "b");
        assertThat(registry.get("joulie.agent.errors").tags("node", "a", "kind", "reconcile").counter().count()).isEqualTo(2);
    }

    @Test
    void theWorkerRunsTasksAsTheyComeAndStopsWhenInterrupted() throws InterruptedException {
        WorkQueue<AgentLoop.Task> realQueue = new WorkQueue<>(System::nanoTime);
        CountDownLatch reconciled = new CountDownLatch(1);
        AgentLoop.Reconciler signalling = new AgentLoop.Reconciler() {
            @Override
            public Set<String> nodesToVisit() {
                return Set.of();
            }

            @Override
            public void reconcile(String node, boolean periodic) {
                reconciled.countDown();
            }
        };
        AgentLoop real = new AgentLoop(realQueue, signalling, Optional.empty(), metrics, clock, Duration.ofHours(1));
        Thread worker = Thread.ofPlatform().daemon().start(real::run);
        real.watchesSynced();
        real.nodeChanged("a");
        assertThat(reconciled.await(10, TimeUnit.SECONDS)).isTrue();

        real.stop();
        worker.interrupt();
        worker.join(Duration.ofSeconds(10));
        assertThat(worker.isAlive()).isFalse();
    }
}
