package io.joulie.operator.runtime;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

class TickWriterTest {

    /** A wave of {@code n} writes that record their wave in {@code log}. */
    static List<BooleanSupplier> wave(String name, int n, List<String> log) {
        List<BooleanSupplier> tasks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            tasks.add(() -> {
                log.add(name);
                return true;
            });
        }
        return tasks;
    }

    @Test
    void everyWriteOfAWaveIsDoneBeforeTheNextWaveStarts() {
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        TickWriter.Result r = TickWriter.run(List.of(wave("raise", 40, log), wave("lower", 40, log), wave("release", 5, log)),
                () -> true, 8);
        assertThat(r).isEqualTo(new TickWriter.Result(0, false, 0));
        assertThat(log).hasSize(85);
        assertThat(log.subList(0, 40)).containsOnly("raise");
        assertThat(log.subList(40, 80)).containsOnly("lower");
        assertThat(log.subList(80, 85)).containsOnly("release");
    }

    @Test
    void writesRunInParallelButNeverMoreThanTheLimit() throws Exception {
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch fourAtOnce = new CountDownLatch(4);
        List<BooleanSupplier> tasks = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            tasks.add(() -> {
                most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                fourAtOnce.countDown();
                try {
                    // the first four wait for each other: they can only all get here if they run side by side
                    fourAtOnce.await(5, TimeUnit.SECONDS);
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                inFlight.decrementAndGet();
                return true;
            });
        }
        TickWriter.Result r = TickWriter.run(List.of(tasks), () -> true, 4);
        assertThat(r.failures()).isZero();
        assertThat(fourAtOnce.getCount()).as("four writes were in flight together").isZero();
        assertThat(most.get()).as("most writes in flight at once").isEqualTo(4);
    }

    @Test
    void failedAndThrowingWritesAreCountedAndTheOthersStillRun() {
        AtomicInteger ran = new AtomicInteger();
        List<BooleanSupplier> tasks = List.of(() -> ran.incrementAndGet() < 0, () -> {
            ran.incrementAndGet();
            throw new IllegalStateException("API server said no");
        }, () -> ran.incrementAndGet() > 0);
        TickWriter.Result r = TickWriter.run(List.of(tasks, List.of(() -> ran.incrementAndGet() > 0)), () -> true, 2);
        assertThat(r).isEqualTo(new TickWriter.Result(2, false, 0));
        assertThat(ran).hasValue(4);
    }

    @Test
    void afterTheLeaseIsLostNoFurtherWriteStarts() {
        AtomicBoolean leading = new AtomicBoolean(true);
        AtomicInteger ran = new AtomicInteger();
        List<BooleanSupplier> first = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            first.add(() -> {
                ran.incrementAndGet();
                leading.set(false);
                return true;
            });
        }
        List<BooleanSupplier> second = List.of(() -> ran.incrementAndGet() > 0);
        TickWriter.Result r = TickWriter.run(List.of(first, second), leading::get, 1);
        assertThat(r.interrupted()).isTrue();
        assertThat(ran).as("only the write started while leading").hasValue(1);
    }

    @Test
    void noWriteStartsOnceTheDeadlineHasPassedAndTheRestAreCountedAsNotStartedNotFailed() {
        AtomicInteger ran = new AtomicInteger();
        AtomicBoolean beforeDeadline = new AtomicBoolean(true);
        List<BooleanSupplier> first = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            first.add(() -> {
                ran.incrementAndGet();
                beforeDeadline.set(false); // this write takes until past the deadline
                return true;
            });
        }
        List<BooleanSupplier> second = List.of(() -> ran.incrementAndGet() > 0, () -> ran.incrementAndGet() > 0);
        TickWriter.Result r = TickWriter.run(List.of(first, second), () -> true, beforeDeadline::get, 1);
        assertThat(r).isEqualTo(new TickWriter.Result(0, false, 4));
        assertThat(ran).as("only the write started before the deadline").hasValue(1);
    }
}
