package io.joulie.operator.runtime;

import io.joulie.testkit.FakeClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The watchdog's queue: reports run at once on its own thread, moments when they come, a recheck that cannot run yet again. */
class ContractWatchTest {
    final FakeClock clock = new FakeClock();
    final BlockingQueue<Set<String>> rechecked = new LinkedBlockingQueue<>();
    final List<PlannerLoop.Recheck> answers = new ArrayList<>();
    final ContractWatch watch = new ContractWatch(nodes -> {
        rechecked.add(nodes);
        return answers.isEmpty() ? PlannerLoop.Recheck.RAN : answers.removeFirst();
    }, clock);

    @AfterEach
    void stop() {
        watch.stop(null);
    }

    @Test
    void aReportIsRecheckedAtOnceOnTheWatchdogsThread() throws Exception {
        watch.start();
        watch.report("n1");

        assertThat(rechecked.poll(5, TimeUnit.SECONDS)).containsExactly("n1");
    }

    @Test
    void aMomentIsRecheckedWhenItHasComeAndNotBefore() throws Exception {
        watch.start();
        watch.at(Map.of("n2", clock.instant().plusMillis(300)));
        assertThat(rechecked.poll(600, TimeUnit.MILLISECONDS)).as("the watch's clock has not reached it").isNull();
        assertThat(watch.pending()).containsKey("n2");

        clock.advance(Duration.ofMillis(300));
        watch.at(Map.of("n3", clock.instant().plusMillis(100)));
        assertThat(rechecked.poll(5, TimeUnit.SECONDS)).containsExactly("n2");
        assertThat(watch.pending()).containsOnlyKeys("n3");
    }

    @Test
    void reportsWhileHeldWaitAndOneThatCannotRunYetComesBackASecondLater() {
        watch.hold(true);
        watch.report("n1");
        watch.report("n2");
        answers.add(PlannerLoop.Recheck.LATER);

        assertThat(watch.runDue()).as("not run yet").isEmpty();
        assertThat(rechecked.poll()).containsExactly("n1", "n2");
        assertThat(watch.pending()).containsEntry("n1", clock.instant().plus(ContractWatch.RETRY));
        assertThat(watch.runDue()).isEmpty();

        clock.advance(ContractWatch.RETRY);
        assertThat(watch.runDue()).containsExactly("n1", "n2");

        // a replica that does not lead drops them: the leader's first tick looks at every node
        watch.report("n4");
        answers.add(PlannerLoop.Recheck.NOT_LEADING);
        assertThat(watch.runDue()).isEmpty();
        assertThat(watch.pending()).isEmpty();
    }
}
