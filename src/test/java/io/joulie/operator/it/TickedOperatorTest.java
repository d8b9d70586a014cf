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
     * The tick is taken before the cluster is reset: a scheduled tick (or a watchdog recheck) of the previous test's
     * nodes still running while the reset deletes their NodePowerProfiles could write one back for the next test's node
     * of the same name (the likely cause of a rare failure: node-a without a state after two ticks).
     */
    @Override
    void quiesce() {
        ticks = new Ticks(loop, scheduler, clock, cluster, leader, watch);
        ticks.take();
    }

    @AfterEach
    void giveTheTickBack() {
        ticks.giveBack();
    }
}
