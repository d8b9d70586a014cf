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
