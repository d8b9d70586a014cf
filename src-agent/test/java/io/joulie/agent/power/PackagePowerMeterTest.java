package io.joulie.agent.power;

import io.joulie.agent.host.Msr;
import io.joulie.agent.host.Powercap;
import io.joulie.agent.host.SysfsPowercap;
import io.joulie.agent.host.ffm.FfmSysfsFiles;
import io.joulie.testkit.FakeClock;
import io.joulie.testkit.FakeHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class PackagePowerMeterTest {
    @TempDir
    Path root;

    @Test
    void sumsThePackagesEnergyOverElapsedTimeAcrossACounterWrap() throws IOException {
        FakeHost host = new FakeHost(root);
        Path p0 = host.intelPackage(0);
        Path p1 = host.intelPackage(1);
        FakeHost.write(p0.resolve("energy_uj"), "1000000");
        FakeHost.write(p1.resolve("energy_uj"), Long.toString(FakeHost.MAX_ENERGY_RANGE_UJ - 5_000_000));
        FakeClock clock = new FakeClock();
        try (Powercap powercap = SysfsPowercap.open(host.sys(), new FfmSysfsFiles(), Msr.absent())) {
            PackagePowerMeter meter = new PackagePowerMeter(powercap, clock);
            assertThat(meter.sampleWatts()).isEmpty();

            FakeHost.write(p0.resolve("energy_uj"), "11000000");           // +10 J
            FakeHost.write(p1.resolve("energy_uj"), "15000000");           // wrapped: +5 J + 15 J
            clock.advance(Duration.ofSeconds(2));
            assertThat(meter.sampleWatts()).hasValue(15.0);                // 30 J in 2 s

            assertThat(meter.sampleWatts()).isEmpty();                     // no time elapsed
            FakeHost.write(p0.resolve("energy_uj"), "12000000");
            clock.advance(Duration.ofMillis(500));
            assertThat(meter.sampleWatts()).hasValue(2.0);                 // 1 J in 0.5 s
        }
    }

    @Test
    void withoutPackagesThereIsNoReadingRatherThanZeroWatts() throws IOException {
        FakeClock clock = new FakeClock();
        PackagePowerMeter meter = new PackagePowerMeter(Powercap.absent(), clock);
        assertThat(meter.sampleWatts()).isEmpty();
        clock.advance(Duration.ofSeconds(2));
        assertThat(meter.sampleWatts()).isEmpty();
    }
}
