package io.joulie.agent.host.ffm;

import io.joulie.agent.host.CpuVendor;
import io.joulie.agent.host.HostRoots;
import io.joulie.agent.host.Msr;
import io.joulie.agent.host.PackageMsr;
import io.joulie.testkit.FakeHost;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FfmMsrTest {
    @TempDir
    Path root;
    FakeHost host;

    @BeforeEach
    void setUp() {
        host = new FakeHost(root);
    }

    @Test
    void decodesIntelUnitsEnergyAndPowerLimitOfEachPackage() throws IOException {
        host.topology(0, 0);
        host.topology(1, 0);
        host.topology(2, 1);
        host.msr(0, Map.of(FfmMsr.INTEL_RAPL_POWER_UNIT, FakeHost.INTEL_UNITS, FfmMsr.INTEL_PKG_ENERGY_STATUS, 0x1000L,
                FfmMsr.INTEL_PKG_POWER_LIMIT, 0L));
        host.msr(1, Map.of());
        long pl1 = 1000;    // 125 W in 1/8 W units
        long pl2 = 1200;    // 150 W
        long limit = 1L << 63 | 1L << 47 | pl2 << 32 | 1L << 15 | pl1;
        host.intelMsr(2, limit);

        try (Msr msr = FfmMsr.open(HostRoots.under(root), CpuVendor.INTEL)) {
            assertThat(msr.packages()).containsExactly(0, 1);
            PackageMsr pkg1 = msr.read(1).orElseThrow();
            assertThat(pkg1.units()).isEqualTo(new PackageMsr.Units(0.125, 1.0 / 16384));
            assertThat(pkg1.powerLimit()).contains(new PackageMsr.PowerLimit(125, true, 150, true, true));
            // intelMsr: 0x611 holds the limit's upper 7 bytes, so the counter is bits 8..39 of the limit
            assertThat(pkg1.energyCounter()).isEqualTo(limit >>> 8 & 0xFFFF_FFFFL).isEqualTo(0xB000_0083L);
            assertThat(pkg1.energyJoules()).isEqualTo(0xB000_0083L / 16384.0);
            // intelMsr: 0x614 holds the limit's upper 4 bytes, so the TDP (bits 14:0) is the PL2 field
            assertThat(pkg1.tdpWatts()).hasValue(150);

            PackageMsr pkg0 = msr.read(0).orElseThrow();
            assertThat(pkg0.energyCounter()).isEqualTo(0x1000);
            assertThat(pkg0.energyJoules()).isEqualTo(0.25);
            // 0x610 reads its own zero byte, then the energy counter's low bytes: 0x1000 << 8, no PL1/PL2 bits
            assertThat(pkg0.powerLimit()).contains(new PackageMsr.PowerLimit(0, false, 0, false, false));
            assertThat(pkg0.tdpWatts()).as("0x614 lies beyond this device: not readable, no TDP").isEmpty();
            assertThat(msr.read(7)).isEmpty();
        }
    }

    @Test
    void amdHasUnitsAndEnergyButNoPowerLimitAndOnePackageWithoutTopology() throws IOException {
        host.msr(0, Map.of(FfmMsr.AMD_RAPL_POWER_UNIT, 0x000A_1003L, FfmMsr.AMD_PKG_ENERGY_STATUS, 0x0001_0000L));
        try (Msr msr = FfmMsr.open(HostRoots.under(root), CpuVendor.AMD)) {
            assertThat(msr.packages()).containsExactly(0);
            PackageMsr pkg = msr.read(0).orElseThrow();
            assertThat(pkg.units()).isEqualTo(new PackageMsr.Units(0.125, 1.0 / 65536));
            assertThat(pkg.energyJoules()).isEqualTo(1.0);
            assertThat(pkg.powerLimit()).isEmpty();
            assertThat(pkg.tdpWatts()).isEmpty();
        }
    }

    @Test
    void aRegisterBeyondTheDeviceIsAnErrorNotAZero() throws IOException {
        Path device = host.msr(0, Map.of(FfmMsr.INTEL_RAPL_POWER_UNIT, FakeHost.INTEL_UNITS));
        try (Msr msr = FfmMsr.open(HostRoots.under(root), CpuVendor.INTEL)) {
            assertThatThrownBy(() -> msr.read(0)).isInstanceOf(IOException.class)
                    .hasMessage(device + ": read 0 of 8 bytes at 0x611");
        }
    }

    /** Opens with {@code errno} for every device, as a host refusing them would; counts the tries. */
    static FfmMsr.Opener failing(Errno errno, List<Path> tried) {
        return device -> {
            tried.add(device);
            throw new NativeIoException("open", device, errno.number());
        };
    }

    /**
     * A container runtime's device cgroup refuses a non-privileged container every device it was not told to allow:
     * open(2) of /dev/cpu/N/msr gives EPERM although the device is there and CAP_SYS_RAWIO is held. The probe at start
     * finds it once, no package is read, and the reason says what refused and what would allow it.
     */
    @Test
    void msrDevicesTheRuntimeRefusesAreUnavailableWithTheCauseAndTheRemedy() throws IOException {
        host.intelMsr(0, 0L);
        host.intelMsr(1, 0L);
        List<Path> tried = new java.util.ArrayList<>();
        try (Msr msr = FfmMsr.open(HostRoots.under(root), CpuVendor.INTEL, failing(Errno.EPERM, tried))) {
            assertThat(tried).containsExactly(root.resolve("dev/cpu/0/msr"));
            assertThat(msr.packages()).isEmpty();
            assertThat(msr.read(0)).isEmpty();
            assertThat(tried).as("not tried again at every read").hasSize(1);
            assertThat(msr.unavailable()).hasValueSatisfying(why -> assertThat(why)
                    .startsWith("MSR reads refused (open " + root.resolve("dev/cpu/0/msr") + ": EPERM (1, operation not permitted)): ")
                    .contains("the container runtime's device cgroup does not allow /dev/cpu/*/msr")
                    .contains("MSR telemetry is off", "capping goes on through powercap")
                    .contains("privileged container", "device plugin"));
        }
    }

    @Test
    void otherFailuresToOpenNameTheirCause() throws IOException {
        host.intelMsr(0, 0L);
        try (Msr msr = FfmMsr.open(HostRoots.under(root), CpuVendor.AMD, failing(Errno.EACCES, new java.util.ArrayList<>()))) {
            assertThat(msr.unavailable()).hasValueSatisfying(why -> assertThat(why).contains("EACCES", "nodev mount"));
        }
        try (Msr msr = FfmMsr.open(HostRoots.under(root), CpuVendor.INTEL, failing(Errno.ENXIO, new java.util.ArrayList<>()))) {
            assertThat(msr.unavailable()).hasValueSatisfying(why -> assertThat(why).contains("ENXIO", "msr driver is not loaded"));
        }
    }

    /** A readable device is opened once, at the probe, and that descriptor serves the reads. */
    @Test
    void aReadableDeviceIsOpenedOnceAndHasNothingToSay() throws IOException {
        host.intelMsr(0, 1L << 15 | 1000);
        List<Path> opened = new java.util.ArrayList<>();
        FfmMsr.Opener counting = device -> {
            opened.add(device);
            return NativeFile.open(device, NativeFile.Mode.READ);
        };
        try (Msr msr = FfmMsr.open(HostRoots.under(root), CpuVendor.INTEL, counting)) {
            assertThat(msr.unavailable()).isEmpty();
            assertThat(msr.read(0)).isPresent();
            assertThat(msr.read(0)).isPresent();
            assertThat(opened).hasSize(1);
        }
    }

    /**
     * What the refusal changes on the node: the MSR label is false and the NodeHardware's CPU says why, while the
     * RAPL packages are found, writable and capped through powercap as before.
     */
    @Test
    void withTheMsrsRefusedTheHostStillCapsThroughPowercapAndItsInventorySaysWhy() throws IOException {
        host.cpuinfo("GenuineIntel", "Intel(R) Xeon(R) Test CPU");
        host.intelPackage(0, 250_000_000);
        host.intelMsr(0, 0L);
        HostRoots roots = HostRoots.under(root);
        Msr msr = FfmMsr.open(roots, CpuVendor.INTEL, failing(Errno.EPERM, new java.util.ArrayList<>()));
        try (io.joulie.agent.host.Host node = new io.joulie.agent.host.Host(roots, io.joulie.agent.host.CpuInfo.read(roots.proc()), msr,
                io.joulie.agent.host.SysfsPowercap.open(roots.sys(), new FfmSysfsFiles(), msr),
                io.joulie.agent.host.Cpufreq.absent(), io.joulie.agent.host.Gpus.absent("no GPU here"))) {
            var capabilities = node.capabilities();
            assertThat(capabilities.msr()).isFalse();
            assertThat(capabilities.labels()).containsEntry("feature.joulie.io/msr", "false");
            assertThat(capabilities.rapl()).isTrue();
            assertThat(capabilities.raplWritable()).isTrue();
            var cpu = new io.joulie.agent.inventory.HostInventory(node, capabilities.raplWritable())
                    .of("n", null, List.of(), Optional.empty()).orElseThrow().cpu();
            assertThat(cpu.control()).isEqualTo(io.joulie.api.v1alpha1.NodeHardwareStatus.Control.POWERCAP);
            assertThat(cpu.message()).isEqualTo(msr.unavailable().orElseThrow());
            assertThat(cpu.packages()).singleElement().satisfies(p -> assertThat(p.tdpWatts()).isNull());
            assertThat(node.powercap().applyNodeCap(150).outcome()).isEqualTo(io.joulie.agent.host.CapResult.Outcome.APPLIED);
            assertThat(host.limit(0)).isEqualTo("150000000");
        }
    }

    @Test
    void absentForOtherVendorsAndWithoutMsrDevices() throws IOException {
        try (Msr none = FfmMsr.open(HostRoots.under(root), CpuVendor.INTEL)) {
            assertThat(none.packages()).isEmpty();
        }
        host.msr(0, Map.of(FfmMsr.INTEL_RAPL_POWER_UNIT, FakeHost.INTEL_UNITS));
        try (Msr other = FfmMsr.open(HostRoots.under(root), CpuVendor.OTHER)) {
            assertThat(other.packages()).isEmpty();
            assertThat(other.read(0)).isEqualTo(Optional.empty());
        }
    }
}
