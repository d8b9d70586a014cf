package io.joulie.agent.control.cpu;

import io.joulie.agent.control.cpu.DvfsController.Band;
import io.joulie.agent.control.cpu.DvfsController.Step;
import io.joulie.agent.host.SysfsCpufreq;
import io.joulie.agent.host.ffm.FfmSysfsFiles;
import io.joulie.testkit.FakeClock;
import io.joulie.testkit.FakeHost;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static io.joulie.testkit.FakeHost.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The loop against the cpufreq files of a fake tree (FFM file port): assertions read the scaling_max_freq files it writes. */
class DvfsControllerTest {
    static final double CAP = 100;
    static final double HIGH = 200;
    static final double LOW = 50;
    static final String MIN = "800000";
    /** scaling_max_freq as found at start, below cpuinfo_max_freq (3500000): the ceiling of unthrottled policies. */
    static final String ORIGINAL = "3100000";

    @TempDir
    Path root;
    FakeClock clock = new FakeClock();
    DvfsController controller;
    Path policy1;
    Path policy2;
    Path policy10;

    @BeforeEach
    void setUp() throws IOException {
        FakeHost host = new FakeHost(root);
        // created out of order; numeric order is 1, 2, 10 (a name sort would give 1, 10, 2)
        policy10 = host.cpufreqPolicy(10, 800_000, 3_500_000, 3_100_000);
        policy2 = host.cpufreqPolicy(2, 800_000, 3_500_000, 3_100_000);
        policy1 = host.cpufreqPolicy(1, 800_000, 3_500_000, 3_100_000);
        controller = new DvfsController(SysfsCpufreq.open(host.sys(), new FfmSysfsFiles()), clock);
    }

    private Step reading(double watts) throws IOException {
        clock.advance(Duration.ofSeconds(5));
        return controller.onReading(CAP, watts);
    }

    private List<String> ceilings() {
        return List.of(read(policy1).strip(), read(policy2).strip(), read(policy10).strip());
    }

    @Test
    void smoothsWithAnExponentialMovingAverage() throws IOException {
        assertThat(reading(200).smoothedWatts()).isEqualTo(200);
        assertThat(reading(100).smoothedWatts()).isCloseTo(0.3 * 100 + 0.7 * 200, within(1e-9));
        assertThat(reading(100).smoothedWatts()).isCloseTo(0.3 * 100 + 0.7 * 170, within(1e-9));
    }

    @Test
    void theBandReachesFifteenWattsBelowAndTenAboveTheCap() throws IOException {
        assertThat(controller.onReading(CAP, 110).band()).isEqualTo(Band.INSIDE);
        DvfsController fresh = new DvfsController(SysfsCpufreq.open(root.resolve("sys"), new FfmSysfsFiles()), clock);
        assertThat(fresh.onReading(CAP, 85).band()).isEqualTo(Band.INSIDE);
        assertThat(new DvfsController(SysfsCpufreq.open(root.resolve("sys"), new FfmSysfsFiles()), clock).onReading(CAP, 110.01).band())
                .isEqualTo(Band.ABOVE);
        assertThat(new DvfsController(SysfsCpufreq.open(root.resolve("sys"), new FfmSysfsFiles()), clock).onReading(CAP, 84.99).band())
                .isEqualTo(Band.BELOW);
    }

    @Test
    void oneReadingAboveTheBandDoesNothingTheSecondThrottlesTheFirstPolicy() throws IOException {
        Step first = reading(HIGH);
        assertThat(first.moved()).isFalse();
        assertThat(ceilings()).containsExactly("3100000", "3100000", "3100000");

        Step second = reading(HIGH);
        assertThat(second.moved()).isTrue();
        assertThat(second.throttlePercent()).isEqualTo(10);
        assertThat(ceilings()).containsExactly(MIN, ORIGINAL, ORIGINAL);
    }

    @Test
    void readingsOutsideTheBandMustBeConsecutive() throws IOException {
        assertThat(reading(120).band()).isEqualTo(Band.ABOVE);
        assertThat(reading(50).band()).isEqualTo(Band.INSIDE);     // 0.3·50 + 0.7·120 = 99
        Step third = reading(200);                                         // 0.3·200 + 0.7·99 = 129.3
        assertThat(third.band()).isEqualTo(Band.ABOVE);
        assertThat(third.moved()).isFalse();
        assertThat(controller.throttlePercent()).isZero();
    }

    @Test
    void noSecondMoveWithinTwentySecondsButReadingsDuringTheCooldownCount() throws IOException {
        reading(HIGH);
        assertThat(reading(HIGH).moved()).isTrue();                        // t = 10 s
        assertThat(reading(HIGH).moved()).isFalse();                       // 15 s
        assertThat(reading(HIGH).moved()).isFalse();                       // 20 s: two readings, cooling down
        assertThat(reading(HIGH).moved()).isFalse();                       // 25 s
        Step afterCooldown = reading(HIGH);                                // 30 s: 20 s after the move
        assertThat(afterCooldown.moved()).isTrue();
        assertThat(afterCooldown.throttlePercent()).isEqualTo(20);
    }

    @Test
    void throttleFollowsCeilOfPolicyShareInPolicyNumberOrder() throws IOException {
        int[] expectedMinPolicies = {1, 1, 1, 2, 2, 2, 3, 3, 3, 3};      // ceil(3 · p / 100) for p = 10..100
        for (int step = 0; step < 10; step++) {
            driveOneMove(HIGH);
            assertThat(controller.throttlePercent()).isEqualTo(10 * (step + 1));
            List<String> expected = List.of(
                    expectedMinPolicies[step] >= 1 ? MIN : ORIGINAL,
                    expectedMinPolicies[step] >= 2 ? MIN : ORIGINAL,
                    expectedMinPolicies[step] >= 3 ? MIN : ORIGINAL);
            assertThat(ceilings()).as("throttle %d %%", 10 * (step + 1)).isEqualTo(expected);
        }
    }

    @Test
    void theThrottleStaysWithinZeroAndOneHundred() throws IOException {
        for (int i = 0; i < 10; i++) {
            driveOneMove(HIGH);
        }
        assertThat(controller.throttlePercent()).isEqualTo(100);
        clock.advance(Duration.ofSeconds(60));
        assertThat(reading(HIGH).moved()).isFalse();
        assertThat(reading(HIGH).moved()).isFalse();
        assertThat(controller.throttlePercent()).isEqualTo(100);
        assertThat(ceilings()).containsExactly(MIN, MIN, MIN);
    }

    @Test
    void belowTheBandTheThrottleComesDownAndPoliciesGoBackToTheirMaximum() throws IOException {
        driveOneMove(HIGH);
        driveOneMove(HIGH);
        driveOneMove(HIGH);
        driveOneMove(HIGH);
        assertThat(ceilings()).containsExactly(MIN, MIN, ORIGINAL);             // 40 %: ceil(1.2) = 2

        settleWithinCooldown(LOW);
        driveOneMove(LOW);
        assertThat(controller.throttlePercent()).isEqualTo(30);
        driveOneMove(LOW);
        assertThat(controller.throttlePercent()).isEqualTo(20);
        assertThat(ceilings()).containsExactly(MIN, ORIGINAL, ORIGINAL);
        driveOneMove(LOW);
        driveOneMove(LOW);
        assertThat(controller.throttlePercent()).isZero();
        assertThat(ceilings()).containsExactly(ORIGINAL, ORIGINAL, ORIGINAL);
    }

    @Test
    void belowTheBandAtZeroNothingIsWritten() throws IOException {
        reading(LOW);
        Step step = reading(LOW);
        assertThat(step.band()).isEqualTo(Band.BELOW);
        assertThat(step.moved()).isFalse();
        assertThat(ceilings()).containsExactly("3100000", "3100000", "3100000");
    }

    @Test
    void rejectsCapsAndReadingsThatAreNotPower() {
        assertThatThrownBy(() -> controller.onReading(Double.NaN, 100)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> controller.onReading(0, 100)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> controller.onReading(CAP, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> controller.onReading(CAP, Double.POSITIVE_INFINITY)).isInstanceOf(IllegalArgumentException.class);
    }

    /** Right after a move: ten readings a second apart bring the average to {@code watts}; none may move. */
    private void settleWithinCooldown(double watts) throws IOException {
        for (int i = 0; i < 10; i++) {
            clock.advance(Duration.ofSeconds(1));
            assertThat(controller.onReading(CAP, watts).moved()).isFalse();
        }
    }

    /**
     * Waits out any cooldown, then feeds readings of {@code watts} until the throttle moves (with the EMA
     * that takes two readings from a steady state, more when the average must first cross the band).
     */
    private void driveOneMove(double watts) throws IOException {
        clock.advance(DvfsController.COOLDOWN);
        for (int i = 0; i < 10; i++) {
            if (controller.onReading(CAP, watts).moved()) {
                return;
            }
        }
        throw new AssertionError("no move after 10 readings of " + watts + " W");
    }
}
