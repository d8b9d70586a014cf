package io.joulie.operator.it;

import io.joulie.operator.runtime.ContractWatch;
import io.joulie.operator.runtime.LeaderElection;
import io.joulie.operator.runtime.PlannerLoop;
import io.joulie.testkit.FakeClock;
import io.quarkus.scheduler.Scheduler;

import java.time.Duration;
import java.time.Instant;

import static io.joulie.operator.it.Cluster.WAIT;
import static org.awaitility.Awaitility.await;

/**
 * Drives the planner tick from the test: the scheduled job is paused, the contract watchdog held and the clock stopped,
 * each {@link #tick()} first lets the operator's watches catch up with the API server, then plans once, then waits
 * until the watches have seen its writes. Whatever a test asserts after a tick is what that tick did; the watchdog acts
 * only when the test says so ({@link #watchdog()}).
 */
final class Ticks {
    /** Where the stopped clock starts: whole seconds, as the NodePowerProfile's {@code since} is written. */
    static final Instant START = FakeClock.START;
    /** The settle time of the test profile ({@code %test.joulie.settle-time}). */
    static final Duration SETTLE = Duration.ofMillis(200);

    private final PlannerLoop loop;
    private final Scheduler scheduler;
    private final TestClock clock;
    private final Cluster cluster;
    private final LeaderElection leader;
    private final ContractWatch watch;

    Ticks(PlannerLoop loop, Scheduler scheduler, TestClock clock, Cluster cluster, LeaderElection leader, ContractWatch watch) {
        this.loop = loop;
        this.watch = watch;
        this.leader = leader;
        this.scheduler = scheduler;
        this.clock = clock;
        this.cluster = cluster;
    }

    /** Pauses the scheduled tick and stops the clock, once this replica leads. */
    void take() {
        await().atMost(WAIT).until(leader::isLeader);
        scheduler.pause(PlannerLoop.JOB);
        watch.hold(true);
        // a tick or a recheck already running finishes first: both hold the loop's lock, as an empty recheck does
        loop.recheck(java.util.List.of());
        clock.stop();
    }

    /** The scheduled tick and the system clock again. */
    void giveBack() {
        clock.release();
        watch.hold(false);
        scheduler.resume(PlannerLoop.JOB);
    }

    /**
     * The contract watchdog's recheck of every node a watch reported on since the last one (and of those whose moment
     * has come), once the watches have caught up; then waits until they have seen its writes. Returns the nodes it
     * rechecked.
     */
    java.util.Set<String> watchdog() {
        cluster.settle();
        java.util.Set<String> nodes = watch.runDue();
        cluster.settle();
        return nodes;
    }

    /**
     * One planning tick that plans and completes, on the state the API server has now. On a loaded machine this replica
     * can miss a Lease renewal (the tests' renew deadline is 1.5 s): the tick is then tried again once it leads again.
     */
    void tick() {
        await().atMost(WAIT).until(() -> {
            cluster.settle();
            await().atMost(WAIT).until(leader::isLeader);
            return loop.tick();
        });
        cluster.settle();
    }

    void tick(int times) {
        for (int i = 0; i < times; i++) {
            tick();
        }
    }

    /** Moves the operator's clock on (the scheduled tick stays paused). */
    void advance(Duration d) {
        clock.advance(d);
    }
}
