package io.joulie.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class FakeHostTest {
    @TempDir
    Path root;

    @Test
    void anIntelNodeHasItsPackagesAtTheOriginalLimitAndTellsTheAgentWhereItIs() {
        FakeHost host = FakeHost.intelNode(root, 2, 400);
        assertThat(host.packages()).isEqualTo(2);
        assertThat(host.limit(0)).isEqualTo("200000000");
        assertThat(host.limit(1)).isEqualTo(Long.toString(FakeHost.ORIGINAL_LIMIT_UW));
        assertThat(FakeHost.read(host.intelZone(1).resolve("constraint_0_max_power_uw"))).isEqualTo("400000000\n");
        assertThat(FakeHost.read(host.proc().resolve("cpuinfo"))).contains("vendor_id\t: GenuineIntel");
        assertThat(host.dev()).isDirectory();
        assertThat(host.agentEnvironment()).containsEntry("JOULIE_SYSFS_ROOT", root.resolve("sys").toString())
                .containsEntry("JOULIE_PROC_ROOT", root.resolve("proc").toString())
                .containsEntry("JOULIE_DEV_ROOT", root.resolve("dev").toString());
    }

    @Test
    void theExpectedLimitSharesTheCapEvenlyAndStopsAtThePackageMaximum() {
        FakeHost host = FakeHost.intelNode(root, 2, 400);
        assertThat(host.expectedLimit(0, 240)).isEqualTo("120000000");
        assertThat(host.expectedLimit(1, 5000)).isEqualTo("400000000");
    }

    @Test
    void energyIsSetPerPackageAndAdvancedOnAll() {
        FakeHost host = FakeHost.intelNode(root, 2, 250);
        host.energy(1, 5_000_000);
        host.addEnergy(37_000_000);
        assertThat(FakeHost.read(host.intelZone(0).resolve("energy_uj"))).isEqualTo("38000000\n");
        assertThat(FakeHost.read(host.intelZone(1).resolve("energy_uj"))).isEqualTo("42000000\n");
    }

    @Test
    void anMsrFileHoldsEachRegisterLittleEndianAtItsAddress() throws IOException {
        FakeHost host = new FakeHost(root);
        Path msr = host.intelMsr(0, 1L << 15 | 1000);
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(msr)).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(bytes.getLong((int) FakeHost.INTEL_RAPL_POWER_UNIT)).isEqualTo(FakeHost.INTEL_UNITS);
        assertThat(bytes.getLong((int) FakeHost.INTEL_PKG_POWER_LIMIT) & 0xFF).isEqualTo(1000 & 0xFF);
        assertThat(bytes.getLong((int) FakeHost.INTEL_PKG_ENERGY_STATUS)).isEqualTo((1L << 15 | 1000) >>> 8);
    }
}
