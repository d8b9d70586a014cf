package io.joulie.operator.runtime;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator's side of the performance contract under seeded random faults ({@link ContractFaultInjection}), judged
 * on the simulated hardware at the production defaults: fixed seeds in the test run. The longer run
 * (docs/reliability.md) is {@link #longRun()}, with {@code -Dfaults.seeds} and {@code -Dfaults.ticks}.
 */
class ContractFaultInjectionTest {
    /** Planning ticks per seed in the test run: at the default one-minute interval, about 11,000 steps of 0.5 s. */
    static final int TICKS = 100;

    @ParameterizedTest(name = "seed {0}")
    // escalation by seed mod 3 (hold, force, evict) and a power budget on even seeds: 1 force, 12 and 90 hold + budget,
    // 62 evict + budget (its drains outlast the 30 min downgrade timeout within the run, so evictions happen, and one is
    // refused). Each fails when a fix of issue 21 is reverted (docs/reliability.md, "What each fault catches"): seed 12
    // when rechecks wait for the tick's lock (a commit on a view the wait made stale); seed 90 without the fail-closed
    // confirmation (an agent in a crash loop on an eco node whose NodePowerProfile is deleted and recreated while the plan
    // raises the node: its label goes to performance at the eco cap); every seed when rechecks may start drains. Seeds 1
    // to 40 keep every invariant; most evict seeds refuse no eviction within 100 ticks.
    @ValueSource(longs = {1, 12, 90, 62})
    void theContractHoldsOnTheHardwareUnderFaults(long seed) {
        ContractFaultInjection run = new ContractFaultInjection(seed);
        ContractFaultInjection.Figures f = run.run(TICKS);

        assertThat(f.violations()).isEmpty();
        assertThat(f.ticks()).isEqualTo(TICKS);
        // the run exercised what it claims to: every kind of fault it can inject, performance-only pods found on eco
        // nodes (rescued, whether or not they ran on the eco package before the agent lifted it), rechecks, moves
        assertThat(f.faults().keySet()).containsAll(run.injectable());
        assertThat(f.rescues()).isPositive();
        assertThat(f.rechecks()).isGreaterThan(100);
        assertThat(f.stateChanges()).isGreaterThan(10);
    }

    @Test
    void theBoundFollowsFromTheSettingsAndIsWellBelowATickThatHoldsOn() {
        // lag 1 s + gap 3.5 s + retry 1 s + step + 3 x (timeout 5 s + backoff 1 s + step) + slow write 5 s + step
        assertThat(ContractFaultInjection.BOUND).isEqualTo(Duration.ofMillis(31_000));
        assertThat(ContractFaultInjection.SETTLE).isEqualTo(Duration.ofSeconds(5));
        assertThat(ContractFaultInjection.INTERVAL).isEqualTo(Duration.ofSeconds(60));
    }

    /**
     * The longer run, as a command (docs/reliability.md):
     * {@code ./mvnw -pl src -am test -Dtest=ContractFaultInjectionTest#longRun -Dsurefire.failIfNoSpecifiedTests=false
     * -Dfaults.seeds=20 -Dfaults.ticks=10000} (seeds from 1000, or from {@code -Dfaults.first}; {@code -Dfaults.parallel} seeds at once, by default one more than
     * the processors; {@code -Dfaults.trace} adds
     * the last events of a violation's node to its report). Without {@code faults.seeds} it runs one short seed, so that it stays a
     * real test in the suite.
     */
    @Test
    void longRun() {
        int seeds = Integer.getInteger("faults.seeds", 1);
        int ticks = Integer.getInteger("faults.ticks", 30);
        long first = Long.getLong("faults.first", 1000);
        int parallel = Integer.getInteger("faults.parallel", Runtime.getRuntime().availableProcessors() + 1);
        long start = System.nanoTime();
        Map<ContractFaultInjection.Fault, Integer> faults = new EnumMap<>(ContractFaultInjection.Fault.class);
        List<String> violations = new ArrayList<>();
        long totalTicks = 0;
        long steps = 0;
        long rechecks = 0;
        long writes = 0;
        long changes = 0;
        long decisions = 0;
        long episodes = 0;
        long rescues = 0;
        long stuck = 0;
        Duration longest = Duration.ZERO;
        // seeds are independent runs: several at once keep both cores busy while a run's threads hand over to each other
        List<ContractFaultInjection.Figures> results;
        try (ExecutorService pool = Executors.newFixedThreadPool(parallel)) {
            List<Future<ContractFaultInjection.Figures>> runs = new ArrayList<>();
            long stride = Long.getLong("faults.stride", 1);
            for (long seed = first; seed < first + seeds * stride; seed += stride) {
                long s = seed;
                runs.add(pool.submit(() -> {
                    ContractFaultInjection run = new ContractFaultInjection(s);
                    ContractFaultInjection.Figures f = run.run(ticks);
                    Set<ContractFaultInjection.Fault> missing = EnumSet.copyOf(run.injectable());
                    missing.removeAll(f.faults().keySet());
                    System.out.printf("seed %d: %d ticks, %d rescues, longest on an eco package %d ms, faults not injected %s,"
                            + " violations %d%n", s, f.ticks(), f.rescues(), f.longestUnderEco().toMillis(), missing, f.violations().size());
                    return f;
                }));
            }
            results = new ArrayList<>();
            for (Future<ContractFaultInjection.Figures> run : runs) {
                results.add(run.get());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a seed's run failed", e.getCause());
        }
        for (ContractFaultInjection.Figures f : results) {
            totalTicks += f.ticks();
            steps += f.steps();
            rechecks += f.rechecks();
            writes += f.writes();
            changes += f.stateChanges();
            decisions += f.decisions();
            episodes += f.underEco();
            rescues += f.rescues();
            stuck += f.stuck();
            longest = f.longestUnderEco().compareTo(longest) > 0 ? f.longestUnderEco() : longest;
            f.faults().forEach((k, v) -> faults.merge(k, v, Integer::sum));
            violations.addAll(f.violations());
        }
        System.out.printf("contract fault injection: %d seeds x %d ticks = %d ticks (%d steps of 0.5 s) in %.1f s (%d at once); rechecks %d;"
                        + " writes %d; state changes %d for %d decisions; rescues %d; performance-only pods on a hardware eco cap %d, longest"
                        + " %d ms (bound %d ms); threads stuck behind a lock %d; faults %s; invariant violations %d%n",
                seeds, ticks, totalTicks, steps, (System.nanoTime() - start) / 1e9, parallel, rechecks, writes, changes, decisions, rescues, episodes,
                longest.toMillis(), ContractFaultInjection.BOUND.toMillis(), stuck, faults, violations.size());
        violations.stream().limit(200).forEach(System.out::println);
        assertThat(violations).isEmpty();
    }
}
