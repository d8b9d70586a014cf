package io.joulie.agent.control.cpu;

import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.Observed;
import io.joulie.agent.host.CapRequest;
import io.joulie.agent.host.CapResult;
import io.joulie.agent.host.Cpufreq;
import io.joulie.agent.host.KeptOriginals;
import io.joulie.agent.host.LimitSnapshot;
import io.joulie.agent.host.Msr;
import io.joulie.agent.host.OriginalsKind;
import io.joulie.agent.host.Powercap;
import io.joulie.agent.host.PowercapZone;
import io.joulie.agent.host.SysfsCpufreq;
import io.joulie.agent.host.SysfsPowercap;
import io.joulie.agent.host.ZoneReading;
import io.joulie.agent.host.ffm.FfmSysfsFiles;
import io.joulie.api.v1alpha1.ControlResult;
import io.joulie.testkit.FakeHost;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicInteger;

import static io.joulie.testkit.FakeHost.limitFile;
import static io.joulie.testkit.FakeHost.read;
import static org.assertj.core.api.Assertions.assertThat;

/** HostCpuControl on a fake tree, with a Powercap wrapper that counts applies and can act as the kernel after a write. */
class HostCpuControlTest {
    @TempDir
    Path root;
    FakeHost host;
    final AtomicInteger applies = new AtomicInteger();

    @BeforeEach
    void setUp() {
        host = new FakeHost(root);
    }

    /** Counts applies; after each, {@code kernel} may rewrite the files as a driver that rounds the value would. */
    private Powercap counting(Powercap real, Runnable kernel) {
        return new Powercap() {
            @Override
            public List<PowercapZone> packages() {
                return real.packages();
            }

            @Override
            public ZoneReading read(PowercapZone zone) throws IOException {
                return real.read(zone);
            }

            @Override
            public long energyUj(PowercapZone zone) throws IOException {
                return real.energyUj(zone);
            }

            @Override
            public boolean writable() {
                return real.writable();
            }

            @Override
            public OptionalDouble nodeWatts(CapRequest cap) {
                return real.nodeWatts(cap);
            }

            @Override
            public CapResult apply(CapRequest cap) {
                applies.incrementAndGet();
                CapResult r = real.apply(cap);
                kernel.run();
                return r;
            }

            @Override
            public List<LimitSnapshot> snapshot() {
                return real.snapshot();
            }

            @Override
            public void recordOriginals() throws IOException {
                real.recordOriginals();
            }

            @Override
            public CapResult restore() {
                return real.restore();
            }

            @Override
            public void close() {
                real.close();
            }
        };
    }

    @Test
    void aLimitTheKernelQuantisedIsTheReferenceAndIsNotRewrittenEveryPeriod() throws IOException {
        Path p0 = host.intelPackage(0);
        // the kernel keeps the limit in 1/8 W units: 100.1 W becomes 100 W
        Runnable kernel = () -> {
            if (read(limitFile(p0)).strip().equals("100100000")) {
                FakeHost.write(limitFile(p0), "100000000");
            }
        };
        try (Powercap powercap = counting(SysfsPowercap.open(host.sys(), new FfmSysfsFiles(), Msr.absent()), kernel)) {
            HostCpuControl control = new HostCpuControl(powercap, Cpufreq.absent(), KeptOriginals.inMemory(OriginalsKind.CPU),
                    InstantSource.system());
            ControlOutcome first = control.enforce(100.1, OptionalDouble.empty());
            assertThat(first.result()).isEqualTo(ControlResult.APPLIED);
            assertThat(first.observed()).containsEntry(Observed.CAP_WATTS, 100.0);
            assertThat(read(limitFile(p0)).strip()).isEqualTo("100000000");

            for (int period = 0; period < 3; period++) {
                assertThat(control.enforce(100.1, OptionalDouble.empty()).result()).isEqualTo(ControlResult.APPLIED);
            }
            assertThat(applies).hasValue(1);
            assertThat(control.rewrites()).isZero();

            // a real change behind the agent's back is still put back
            FakeHost.write(limitFile(p0), "180000000");
            assertThat(control.enforce(100.1, OptionalDouble.empty()).result()).isEqualTo(ControlResult.APPLIED);
            assertThat(applies).hasValue(2);
            assertThat(control.rewrites()).isEqualTo(1);
            assertThat(read(limitFile(p0)).strip()).isEqualTo("100000000");
        }
    }

    @Test
    void aBlockedCapIsNotTriedAgainEveryPeriodUntilTheCapChanges() throws IOException {
        Path p0 = host.intelPackage(0);
        FakeHost.write(p0.resolve("constraint_0_max_power_uw"), "0"); // no known maximum, no MSR: blocked
        try (Powercap powercap = counting(SysfsPowercap.open(host.sys(), new FfmSysfsFiles(), Msr.absent()), () -> { })) {
            HostCpuControl control = new HostCpuControl(powercap, Cpufreq.absent(), KeptOriginals.inMemory(OriginalsKind.CPU),
                    InstantSource.system());
            ControlOutcome first = control.enforce(100, OptionalDouble.empty());
            assertThat(first.result()).isEqualTo(ControlResult.BLOCKED);
            assertThat(first.message()).contains("no hardware maximum known");
            for (int period = 0; period < 3; period++) {
                assertThat(control.enforce(100, OptionalDouble.empty())).isEqualTo(first);
            }
            assertThat(applies).hasValue(1);

            assertThat(control.enforce(90, OptionalDouble.empty()).result()).isEqualTo(ControlResult.BLOCKED);
            assertThat(applies).hasValue(2);
            assertThat(read(limitFile(p0))).isEqualTo("200000000\n");
        }
    }

    @Test
    void theDvfsFallbackWithoutAPowerReadingIsBlocked() throws IOException {
        Path scalingMax = host.cpufreqPolicy(0, 800_000, 3_500_000, 3_100_000);
        Cpufreq cpufreq = SysfsCpufreq.open(host.sys(), new FfmSysfsFiles());
        HostCpuControl control = new HostCpuControl(Powercap.absent(), cpufreq, KeptOriginals.inMemory(OriginalsKind.CPU),
                InstantSource.system());
        ControlOutcome out = control.enforce(100, OptionalDouble.empty());
        assertThat(out.backend()).isEqualTo(CpuBackend.DVFS);
        assertThat(out.result()).isEqualTo(ControlResult.BLOCKED);
        assertThat(out.message()).contains("no power reading for the DVFS loop");
        assertThat(read(scalingMax).strip()).isEqualTo("3100000");

        assertThat(control.enforce(100, OptionalDouble.of(80)).result()).isEqualTo(ControlResult.APPLIED);
    }
}
