package io.joulie.operator.it;

import io.joulie.operator.runtime.ContractWatch;
import io.joulie.operator.runtime.LeaderElection;
import io.joulie.operator.runtime.PlannerLoop;
import io.quarkus.scheduler.Scheduler;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

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

    @BeforeEach
    void takeTheTick() {
        ticks = new Ticks(loop, scheduler, clock, cluster, leader, watch);
        ticks.take();
    }

    @AfterEach
    void giveTheTickBack() {
        ticks.giveBack();
    }
}
