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
    void zonesAreDirectoriesOfTheirControlTypeReachedThroughRelativeClassLinksAsTheKernelLaysThemOut() throws IOException {
        FakeHost host = FakeHost.intelNode(root, 2, 400);
        host.zone("intel-rapl:0:1", "uncore", 4);
        Path packageZone = root.resolve("sys/devices/virtual/powercap/intel-rapl/intel-rapl:0");
        assertThat(host.zoneDevice("intel-rapl:0")).isEqualTo(packageZone);
        assertThat(host.zoneDevice("intel-rapl:0:1")).isEqualTo(packageZone.resolve("intel-rapl:0:1"));
        assertThat(host.zoneDevice("intel-rapl-mmio:0")).isEqualTo(root.resolve("sys/devices/virtual/powercap/intel-rapl-mmio/intel-rapl-mmio:0"));
        assertThat(packageZone.resolve("constraint_0_power_limit_uw")).isRegularFile();
        assertThat(packageZone.resolve("intel-rapl:0:1/name")).hasContent("uncore");
        assertThat(root.resolve("sys/devices/virtual/powercap/intel-rapl/enabled")).hasContent("1");

        Path classDir = root.resolve("sys/class/powercap");
        try (var entries = Files.list(classDir)) {
            assertThat(entries.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("intel-rapl", "intel-rapl:0", "intel-rapl:1", "intel-rapl:0:1");
        }
        try (var entries = Files.list(classDir)) {
            assertThat(entries).allSatisfy(p -> assertThat(Files.isSymbolicLink(p)).as(p + " is a link").isTrue());
        }
        assertThat(Files.readSymbolicLink(classDir.resolve("intel-rapl"))).isEqualTo(Path.of("../../devices/virtual/powercap/intel-rapl"));
        assertThat(Files.readSymbolicLink(classDir.resolve("intel-rapl:1")))
                .isEqualTo(Path.of("../../devices/virtual/powercap/intel-rapl/intel-rapl:1"));
        assertThat(Files.readSymbolicLink(classDir.resolve("intel-rapl:0:1")))
                .isEqualTo(Path.of("../../devices/virtual/powercap/intel-rapl/intel-rapl:0/intel-rapl:0:1"));
        assertThat(host.intelZone(0)).isEqualTo(classDir.resolve("intel-rapl:0"));
        assertThat(host.intelZone(0).toRealPath()).isEqualTo(packageZone.toRealPath());
        // a write through the class link lands in the device's file
        host.energy(0, 7);
        assertThat(packageZone.resolve("energy_uj")).hasContent("7");
    }

    @Test
    void aZoneIdWithoutAControlTypeIsRefused() {
        FakeHost host = new FakeHost(root);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> host.zone("package-0", "package-0", 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a powercap zone id");
    }

    @Test
    void anMsrDeviceIsACharacterDeviceWithTheDriversNumbers() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "mknod needs root");
        FakeHost host = new FakeHost(root);
        Path device = host.msrDevice(1);
        assertThat(device).isEqualTo(root.resolve("dev/cpu/1/msr"));
        Process stat = new ProcessBuilder("stat", "-c", "%F %t %T", device.toString()).start();
        assertThat(new String(stat.getInputStream().readAllBytes()).strip()).isEqualTo("character special file ca 1");
        assertThat(stat.waitFor()).isZero();
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

    @Test
    void anAmdPackageIsAnIntelRaplZoneWithEnergyOnlyAndLimitingReadAsOff() throws IOException {
        FakeHost host = new FakeHost(root);
        Path zone = host.amdPackage(10, 5_000_000);
        Path device = root.resolve("sys/devices/virtual/powercap/intel-rapl/intel-rapl:a");
        assertThat(zone).isEqualTo(root.resolve("sys/class/powercap/intel-rapl:a"));
        assertThat(zone.toRealPath()).isEqualTo(device.toRealPath());
        assertThat(device.resolve("name")).hasContent("package-10");
        assertThat(device.resolve("energy_uj")).hasContent("5000000");
        assertThat(device.resolve("max_energy_range_uj")).hasContent(Long.toString(FakeHost.AMD_MAX_ENERGY_RANGE_UJ));
        assertThat(device.resolve("enabled")).hasContent("0");
        assertThat(device.resolve("intel-rapl:a:0/name")).hasContent("core");
        try (var files = Files.walk(root.resolve("sys/devices/virtual/powercap"))) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("constraint_"));
        }
    }

    @Test
    void aCpufreqPolicyOfADriverHasTheCoreFilesTheDriversOwnAndItsModeSwitch() {
        FakeHost host = new FakeHost(root);
        Path max = host.cpufreqPolicy(3, FakeHost.CpufreqDriver.AMD_PSTATE_ACTIVE, 400_000, 3_700_000, 3_500_000);
        Path policy = root.resolve("sys/devices/system/cpu/cpufreq/policy3");
        assertThat(max).isEqualTo(policy.resolve("scaling_max_freq")).hasContent("3500000");
        assertThat(policy.resolve("scaling_driver")).hasContent("amd-pstate-epp");
        assertThat(policy.resolve("cpuinfo_min_freq")).hasContent("400000");
        assertThat(policy.resolve("energy_performance_preference")).hasContent("balance_performance");
        assertThat(root.resolve("sys/devices/system/cpu/amd_pstate/status")).hasContent("active");

        host.cpufreqPolicy(0, FakeHost.CpufreqDriver.ACPI_CPUFREQ, 1_500_000, 2_400_000, 2_400_000);
        Path acpi = root.resolve("sys/devices/system/cpu/cpufreq/policy0");
        assertThat(acpi.resolve("scaling_driver")).hasContent("acpi-cpufreq");
        assertThat(acpi.resolve("scaling_available_frequencies")).hasContent("2400000 1950000 1500000");
        assertThat(acpi.resolve("energy_performance_preference")).doesNotExist();
        assertThat(root.resolve("sys/devices/system/cpu/cpufreq/boost")).hasContent("1");
    }

    @Test
    void theAmdEnergyHwmonNamesItsCoreChannelsThenItsSockets() {
        Path dir = new FakeHost(root).amdEnergyHwmon(2, 2, 3);
        assertThat(dir.resolve("name")).hasContent("amd_energy");
        assertThat(dir.resolve("energy1_label")).hasContent("Ecore000");
        assertThat(dir.resolve("energy3_label")).hasContent("Ecore002");
        assertThat(dir.resolve("energy4_label")).hasContent("Esocket0");
        assertThat(dir.resolve("energy5_label")).hasContent("Esocket1");
        assertThat(dir.resolve("energy6_label")).doesNotExist();
    }
}
