package io.joulie.agent.runtime;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent's control code under seeded random faults ({@link AgentFaultInjection}): fixed seeds in the test run. The
 * longer run (docs/reliability.md) is {@link #longRun()}, with {@code -Dfaults.seeds} and {@code -Dfaults.steps}.
 */
class AgentFaultInjectionTest {
    static final int STEPS = 2_500;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 42})
    void noCapOutsideTheBoundsAndTheOriginalsComeBackExactly(long seed) throws IOException {
        AgentFaultInjection.Figures figures = new AgentFaultInjection(seed).run(STEPS);
        assertThat(figures.violations()).isEmpty();
        // the run exercised what it claims to: crashes, reboots, injected faults, and restores it could check
        assertThat(figures.crashes()).isPositive();
        assertThat(figures.reboots()).isPositive();
        assertThat(figures.kexecs()).isPositive();
        assertThat(figures.faults()).containsKeys(AgentFaultInjection.Fault.values());
        assertThat(figures.restoresChecked()).isGreaterThan(20);
        assertThat(figures.agentWrites()).isGreaterThan(100);
    }

    /**
     * The longer run, as a command (docs/reliability.md):
     * {@code ./mvnw -pl src-api,src-testkit,src-agent test -Dtest=AgentFaultInjectionTest#longRun -Dfaults.seeds=20 -Dfaults.steps=50000}.
     * Without {@code faults.seeds} it runs one short seed, so that it stays a real test in the suite.
     */
    @Test
    void longRun() throws IOException {
        int seeds = Integer.getInteger("faults.seeds", 1);
        int steps = Integer.getInteger("faults.steps", 500);
        long start = System.nanoTime();
        long totalSteps = 0;
        java.util.Map<AgentFaultInjection.Fault, Integer> faults = new java.util.EnumMap<>(AgentFaultInjection.Fault.class);
        java.util.Map<AgentFaultInjection.Step, Integer> kinds = new java.util.EnumMap<>(AgentFaultInjection.Step.class);
        long writes = 0;
        long restores = 0;
        long crashes = 0;
        long reboots = 0;
        long kexecs = 0;
        java.util.List<String> violations = new java.util.ArrayList<>();
        for (long seed = 1000; seed < 1000 + seeds; seed++) {
            AgentFaultInjection.Figures f = new AgentFaultInjection(seed).run(steps);
            totalSteps += f.steps();
            f.faults().forEach((k, v) -> faults.merge(k, v, Integer::sum));
            f.stepsByKind().forEach((k, v) -> kinds.merge(k, v, Integer::sum));
            writes += f.agentWrites();
            restores += f.restoresChecked();
            crashes += f.crashes();
            reboots += f.reboots();
            kexecs += f.kexecs();
            violations.addAll(f.violations());
        }
        System.out.printf("agent fault injection: %d seeds x %d steps = %d steps in %.1f s; steps by kind %s; faults %s; "
                        + "agent writes checked %d; restores checked %d; crashes %d; reboots %d; kexec reboots %d; invariant violations %d%n",
                seeds, steps, totalSteps, (System.nanoTime() - start) / 1e9, kinds, faults, writes, restores, crashes, reboots,
                kexecs, violations.size());
        assertThat(violations).isEmpty();
    }
}
