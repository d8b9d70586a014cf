package io.joulie.operator.it;

import io.joulie.operator.runtime.ContractWatch;
import io.joulie.operator.runtime.LeaderElection;
import io.joulie.operator.runtime.PlannerLoop;
import io.quarkus.scheduler.Scheduler;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;

/** Base of the operator tests that drive the planner tick themselves, on a stopped clock ({@link Ticks}). */
abstract class TickedOperatorTest extends OperatorTest {
    @Inject
    PlannerLoop loop;
    @Inject
    Scheduler scheduler;
    @Inject
    TestClock clock;
    @Inject
    LeaderElection leader;
    @Inject
    ContractWatch watch;

    Ticks ticks;

    /**
     * The tick is taken before the cluster is reset. A scheduled tick that ran during the reset failed to write the
     * deleted node-a ("PATCH nodes/node-a: Not Found"), so the operator backed off that node's writes until a moment
     * of the system clock; the next test's node-a, on the stopped test clock days earlier, was then never written
     * (ContractTest.onTheWayUp: "expected ActiveEco but was null", in CI runs under load).
     */
    @Override
    void quiesce() {
        ticks = new Ticks(loop, scheduler, clock, cluster, leader, watch);
        ticks.take();
    }

    /**
     * One tick of the empty cluster: the operator forgets what it kept of the previous test's nodes (a node's write
     * backoff, its refused evictions), which a node of the same name would otherwise inherit. On the test's stopped
     * clock, a backoff set on the system clock would hold that node's writes for the whole test.
     */
    @Override
    void afterReset() {
        ticks.tick();
    }

    @AfterEach
    void giveTheTickBack() {
        ticks.giveBack();
    }
}
