package io.joulie.agent.runtime;

import io.joulie.testkit.FakeClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class WorkQueueTest {
    final FakeClock clock = new FakeClock();
    final WorkQueue<String> queue = new WorkQueue<>(clock::nanoTime);

    List<String> drain() {
        List<String> taken = new ArrayList<>();
        for (Optional<String> k = queue.poll(); k.isPresent(); k = queue.poll()) {
            taken.add(k.get());
        }
        return taken;
    }

    @Test
    void keysDueAtOnceComeInTheOrderTheyWereAddedAndAKeyWaitsOnlyOnce() {
        queue.add("a");
        queue.add("b");
        queue.add("a");
        queue.add("c");
        assertThat(drain()).containsExactly("a", "b", "c");
        queue.add("a");
        assertThat(drain()).containsExactly("a");
    }

    @Test
    void aDelayedKeyComesOnlyWhenItsTimeHasComeAndAfterTheKeysDueBefore() {
        queue.addAfter("periodic", Duration.ofSeconds(20));
        queue.add("node");
        assertThat(queue.untilNext()).contains(Duration.ZERO);
        assertThat(drain()).containsExactly("node");
        assertThat(queue.untilNext()).contains(Duration.ofSeconds(20));

        clock.advance(Duration.ofSeconds(19));
        assertThat(queue.poll()).isEmpty();
        clock.advance(Duration.ofSeconds(1));
        assertThat(drain()).containsExactly("periodic");
        assertThat(queue.untilNext()).isEmpty();
    }

    @Test
    void addingAWaitingKeyAgainKeepsTheEarlierTime() {
        queue.addAfter("k", Duration.ofSeconds(20));
        queue.addAfter("k", Duration.ofSeconds(30));
        assertThat(queue.untilNext()).contains(Duration.ofSeconds(20));
        queue.add("k");
        assertThat(drain()).containsExactly("k");
        assertThat(queue.untilNext()).isEmpty();
    }

    @Test
    void aRemovedKeyDoesNotCome() {
        queue.add("a");
        queue.add("b");
        queue.remove("a");
        queue.remove("missing");
        assertThat(drain()).containsExactly("b");
    }

    /** The waiting worker is woken by the add itself; nothing polls. */
    @Test
    void takeWaitsUntilAKeyIsAdded() throws Exception {
        WorkQueue<String> real = new WorkQueue<>(System::nanoTime);
        CompletableFuture<String> taken = CompletableFuture.supplyAsync(() -> {
            try {
                return real.take();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(taken).isNotDone();
        real.add("node");
        assertThat(taken.get(10, TimeUnit.SECONDS)).isEqualTo("node");
    }
}
