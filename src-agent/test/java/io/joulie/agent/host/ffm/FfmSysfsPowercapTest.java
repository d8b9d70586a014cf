package io.joulie.agent.host.ffm;

import io.joulie.agent.host.CapResult;
import io.joulie.agent.host.CapResult.Outcome;
import io.joulie.agent.host.CpuVendor;
import io.joulie.agent.host.HostRoots;
import io.joulie.agent.host.LimitSnapshot;
import io.joulie.agent.host.Msr;
import io.joulie.agent.host.PowerConstraint;
import io.joulie.agent.host.Powercap;
import io.joulie.agent.host.PowercapZone;
import io.joulie.agent.host.SysfsPowercap;
import io.joulie.agent.host.ZoneReading;
import io.joulie.testkit.FakeHost;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.OptionalLong;

import static io.joulie.testkit.FakeHost.MAX_ENERGY_RANGE_UJ;
import static io.joulie.testkit.FakeHost.limitFile;
import static io.joulie.testkit.FakeHost.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class FfmSysfsPowercapTest {
    @TempDir
    Path root;
    FakeHost host;

    @BeforeEach
    void setUp() {
        host = new FakeHost(root);
    }

    private Powercap open() throws IOException {
        return SysfsPowercap.open(host.sys(), new FfmSysfsFiles(), Msr.absent());
    }

    @Test
    void discoversPackagesInOrderWithTheirSubZonesAndSkipsPsysAndOtherDrivers() throws IOException {
        host.intelPackage(1);
        host.intelPackage(0);
        host.zone("intel-rapl:0:2", "dram", 5);
        host.zone("intel-rapl:0:0", "core", 3);
        host.zone("intel-rapl:0:1", "uncore", 4);
        host.zone("intel-rapl:1:0", "core", 6);
        host.zone("intel-rapl:2", "psys", 7);
        host.zone("intel-rapl-mmio:0", "package-0", 8);
        FakeHost.write(host.powercap().resolve("intel-rapl/enabled"), "1");

        try (Powercap powercap = open()) {
            assertThat(powercap.packages()).extracting(PowercapZone::id).containsExactly("intel-rapl:0", "intel-rapl:1");
            PowercapZone first = powercap.packages().getFirst();
            assertThat(first.name()).isEqualTo("package-0");
            assertThat(first.packageIndex()).isZero();
            assertThat(first.maxEnergyRangeUj()).isEqualTo(MAX_ENERGY_RANGE_UJ);
            assertThat(first.subZones()).extracting(PowercapZone::id, PowercapZone::name)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("intel-rapl:0:0", "core"),
                            org.assertj.core.groups.Tuple.tuple("intel-rapl:0:1", "uncore"),
                            org.assertj.core.groups.Tuple.tuple("intel-rapl:0:2", "dram"));
            assertThat(powercap.packages().get(1).subZones()).extracting(PowercapZone::name).containsExactly("core");
            assertThat(powercap.energyUj(first.subZones().get(2))).isEqualTo(5);
        }
    }

    @Test
    void readsEnabledEnergyAndConstraintsWithAbsentOptionalFilesEmpty() throws IOException {
        Path zone = host.intelPackage(0);
        FakeHost.write(zone.resolve("constraint_0_min_power_uw"), "50000000");
        Files.delete(zone.resolve("constraint_1_max_power_uw"));
        Files.delete(zone.resolve("constraint_1_name"));
        FakeHost.write(zone.resolve("enabled"), "0");

        try (Powercap powercap = open()) {
            ZoneReading reading = powercap.read(powercap.packages().getFirst());
            assertThat(reading.enabled()).isFalse();
            assertThat(reading.energyUj()).isEqualTo(1_000_000);
            assertThat(reading.constraints()).containsExactly(
                    new PowerConstraint(0, "long_term", 200_000_000, OptionalLong.of(50_000_000), OptionalLong.of(250_000_000),
                            OptionalLong.of(999_424)),
                    new PowerConstraint(1, "", 240_000_000, OptionalLong.empty(), OptionalLong.empty(), OptionalLong.of(2_440)));
            assertThat(reading.longTerm()).map(PowerConstraint::index).contains(0);
        }
    }

    @Test
    void energyIsReadThroughTheKeptHandleAndADecreaseCountsAsAWrap() throws IOException {
        Path zone = host.intelPackage(0);
        try (Powercap powercap = open()) {
            PowercapZone pkg = powercap.packages().getFirst();
            FakeHost.write(zone.resolve("energy_uj"), Long.toString(MAX_ENERGY_RANGE_UJ - 500));
            long before = powercap.energyUj(pkg);
            FakeHost.write(zone.resolve("energy_uj"), "700");
            long after = powercap.energyUj(pkg);
            assertThat(pkg.energyDeltaUj(before, after)).isEqualTo(1_200);
            assertThat(pkg.energyDeltaUj(700, 1_700)).isEqualTo(1_000);
        }
    }

    @Test
    void aCounterWithoutKnownRangeCountsOnlyTheEnergySinceTheWrap() {
        PowercapZone unknownRange = new PowercapZone("intel-rapl:0", "package-0", 0, 0, java.util.List.of());
        assertThat(unknownRange.energyDeltaUj(5_000, 700)).isEqualTo(700);
    }

    @Test
    void aNodeCapIsSplitEvenlyAcrossPackagesInMicrowatts() throws IOException {
        Path p0 = host.intelPackage(0);
        Path p1 = host.intelPackage(1);
        try (Powercap powercap = open()) {
            CapResult result = powercap.applyNodeCap(240);
            assertThat(result.outcome()).isEqualTo(Outcome.APPLIED);
            assertThat(read(limitFile(p0))).isEqualTo("120000000");
            assertThat(read(limitFile(p1))).isEqualTo("120000000");
            assertThat(read(p0.resolve("constraint_1_power_limit_uw"))).isEqualTo("240000000\n");
            assertThat(result.writtenUw()).isEqualTo(Map.of("intel-rapl:0", 120_000_000L, "intel-rapl:1", 120_000_000L));
            assertThat(result.observedUw()).isEqualTo(result.writtenUw());
            assertThat(result.message()).isEqualTo("applied node cap 240 W as long_term limit on 2 packages");
        }
    }

    @Test
    void aSinglePackageGetsTheWholeCap() throws IOException {
        Path p0 = host.intelPackage(0);
        try (Powercap powercap = open()) {
            assertThat(powercap.applyNodeCap(95.5).outcome()).isEqualTo(Outcome.APPLIED);
            assertThat(read(limitFile(p0))).isEqualTo("95500000");
        }
    }

    /**
     * The kernel's RAPL driver serves AMD packages too, under the same control type: their zones are intel-rapl:N, with
     * energy counters and no power limit (AMD has no power-limit register; docs/install.md, "Hardware and drivers").
     */
    @Test
    void amdPackagesAreFoundForTheirEnergyButTakeNoLimit() throws IOException {
        host.cpuinfo("AuthenticAMD", "AMD EPYC 9654 96-Core Processor");
        Path zone = host.amdPackage(0, 42);
        try (Powercap powercap = open()) {
            assertThat(powercap.packages()).extracting(PowercapZone::id).containsExactly("intel-rapl:0");
            assertThat(powercap.energyUj(powercap.packages().getFirst())).isEqualTo(42);
            assertThat(powercap.writable()).isFalse();
            CapResult result = powercap.applyNodeCap(150);
            assertThat(result.outcome()).isEqualTo(Outcome.BLOCKED);
            assertThat(result.message()).startsWith("intel-rapl:0 (package-0): no power limit, only an energy counter");
            assertThat(result.writtenUw()).isEmpty();
            assertThat(limitFile(zone)).doesNotExist();
        }
    }

    @Test
    void aCapAboveTheHardwareMaximumIsClampedAndSaysSo() throws IOException {
        Path p0 = host.intelPackage(0);
        Path p1 = host.intelPackage(1);
        try (Powercap powercap = open()) {
            CapResult result = powercap.applyNodeCap(5000);
            assertThat(result.outcome()).isEqualTo(Outcome.APPLIED);
            assertThat(read(limitFile(p0))).isEqualTo("250000000");
            assertThat(read(limitFile(p1))).isEqualTo("250000000");
            assertThat(result.message()).isEqualTo("applied node cap 5000 W as long_term limit on 2 packages"
                    + "; intel-rapl:0: 2500000000 uW clamped to hardware max 250000000 uW"
                    + "; intel-rapl:1: 2500000000 uW clamped to hardware max 250000000 uW");
        }
    }

    @Test
    void aCapBelowTheHardwareMinimumIsClampedAndSaysSo() throws IOException {
        Path p0 = host.intelPackage(0);
        FakeHost.write(p0.resolve("constraint_0_min_power_uw"), "50000000");
        try (Powercap powercap = open()) {
            CapResult result = powercap.applyNodeCap(20);
            assertThat(read(limitFile(p0))).isEqualTo("50000000");
            assertThat(result.writtenUw()).isEqualTo(Map.of("intel-rapl:0", 50_000_000L));
            assertThat(result.message()).endsWith("; intel-rapl:0: 20000000 uW clamped to hardware min 50000000 uW");
        }
    }

    /** sysfs prints these unsigned, so 0 is the non-positive value a driver reports. */
    @Test
    void aMaximumOfZeroCountsAsMissingAndWithoutMsrBlocks() throws IOException {
        Path p0 = host.intelPackage(0);
        FakeHost.write(p0.resolve("constraint_0_max_power_uw"), "0");
        try (Powercap powercap = open()) {
            CapResult result = powercap.applyNodeCap(100);
            assertThat(result.outcome()).isEqualTo(Outcome.BLOCKED);
            assertThat(result.message()).startsWith("intel-rapl:0: no hardware maximum known");
            assertThat(result.writtenUw()).isEmpty();
            assertThat(read(limitFile(p0))).isEqualTo("200000000\n");
        }
    }

    @Test
    void aMissingMaximumWithoutReadableMsrBlocksAndWritesNothing() throws IOException {
        Path p0 = host.intelPackage(0);
        Files.delete(p0.resolve("constraint_0_max_power_uw"));
        try (Powercap powercap = open()) {
            assertThat(powercap.writable()).isFalse();
            CapResult result = powercap.applyNodeCap(100);
            assertThat(result.outcome()).isEqualTo(Outcome.BLOCKED);
            assertThat(result.message()).startsWith("intel-rapl:0: no hardware maximum known");
            assertThat(read(limitFile(p0))).isEqualTo("200000000\n");
        }
    }

    /** Power unit 1/8 W: the 15-bit field holds at most 0x7FFF / 8 W = 4095.875 W. */
    @Test
    void aMissingMaximumWithReadableMsrIsBoundedByTheRaplField() throws IOException {
        Path p0 = host.intelPackage(0);
        Files.delete(p0.resolve("constraint_0_max_power_uw"));
        host.intelMsr(0, 1L << 15 | 1000);
        try (Msr msr = FfmMsr.open(HostRoots.under(root), CpuVendor.INTEL); Powercap powercap = SysfsPowercap.open(host.sys(), new FfmSysfsFiles(), msr)) {
            assertThat(powercap.writable()).isTrue();
            CapResult result = powercap.applyNodeCap(100_000);
            assertThat(result.outcome()).isEqualTo(Outcome.APPLIED);
            assertThat(read(limitFile(p0))).isEqualTo("4095875000");
            assertThat(result.message()).endsWith("clamped to hardware max 4095875000 uW");
            assertThat(powercap.applyNodeCap(100).outcome()).isEqualTo(Outcome.APPLIED);
            assertThat(read(limitFile(p0))).isEqualTo("100000000");
        }
    }

    @Test
    void aMinimumAboveTheMaximumBlocksAndWritesNothing() throws IOException {
        Path p0 = host.intelPackage(0);
        Path p1 = host.intelPackage(1);
        FakeHost.write(p1.resolve("constraint_0_min_power_uw"), "300000000");
        try (Powercap powercap = open()) {
            assertThat(powercap.writable()).isFalse();
            CapResult result = powercap.applyNodeCap(240);
            assertThat(result.outcome()).isEqualTo(Outcome.BLOCKED);
            assertThat(result.message()).isEqualTo("intel-rapl:1: hardware min 300000000 uW is above max 250000000 uW");
            assertThat(result.writtenUw()).isEmpty();
            assertThat(read(limitFile(p0))).isEqualTo("200000000\n");
            assertThat(read(limitFile(p1))).isEqualTo("200000000\n");
        }
    }

    @Test
    void aMinimumOfZeroDoesNotClamp() throws IOException {
        Path p0 = host.intelPackage(0);
        FakeHost.write(p0.resolve("constraint_0_min_power_uw"), "0");
        try (Powercap powercap = open()) {
            CapResult result = powercap.applyNodeCap(20);
            assertThat(result.outcome()).isEqualTo(Outcome.APPLIED);
            assertThat(read(limitFile(p0))).isEqualTo("20000000");
        }
    }

    @ParameterizedTest
    @ValueSource(doubles = {0, -120, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1e-9})
    void anInvalidCapIsBlockedAndWritesNothing(double watts) throws IOException {
        Path p0 = host.intelPackage(0);
        try (Powercap powercap = open()) {
            CapResult result = powercap.applyNodeCap(watts);
            assertThat(result.outcome()).isEqualTo(Outcome.BLOCKED);
            assertThat(result.message()).startsWith("invalid node cap " + watts + " W");
            assertThat(result.writtenUw()).isEmpty();
            assertThat(result.observedUw()).isEqualTo(Map.of("intel-rapl:0", 200_000_000L));
            assertThat(read(limitFile(p0))).isEqualTo("200000000\n");
        }
    }

    @Test
    void aPackageWithoutLongTermConstraintBlocksTheCap() throws IOException {
        Path p0 = host.intelPackage(0);
        FakeHost.write(p0.resolve("constraint_0_name"), "peak_power");
        try (Powercap powercap = open()) {
            CapResult result = powercap.applyNodeCap(100);
            assertThat(result.outcome()).isEqualTo(Outcome.BLOCKED);
            assertThat(result.message()).isEqualTo("intel-rapl:0: no long_term constraint");
            assertThat(read(limitFile(p0))).isEqualTo("200000000\n");
            assertThat(powercap.writable()).isFalse();
        }
    }

    /**
     * Root ignores file modes, so a read-only regular file does not stop the tests (they run as root). The
     * limit file is made a symlink to a real read-only sysfs attribute instead: kernfs refuses write opens
     * of 0444 attributes to everyone, which is also what a read-only or locked powercap file does.
     */
    @Test
    void aLimitTheKernelRefusesToOpenForWritingBlocksAndNothingIsWritten() throws IOException {
        assumeTrue(Files.isReadable(NativeFileTest.READ_ONLY_SYSFS_ATTRIBUTE));
        Path p0 = host.intelPackage(0);
        Path p1 = host.intelPackage(1);
        Files.delete(limitFile(p1));
        Files.createSymbolicLink(limitFile(p1), NativeFileTest.READ_ONLY_SYSFS_ATTRIBUTE);
        try (Powercap powercap = open()) {
            assertThat(powercap.writable()).isFalse();
            CapResult result = powercap.applyNodeCap(240);
            assertThat(result.outcome()).isEqualTo(Outcome.BLOCKED);
            assertThat(result.message()).matches("intel-rapl:1: long_term limit not writable: open "
                    + java.util.regex.Pattern.quote(limitFile(p1).toString()) + ": (EACCES|EROFS) .*");
            assertThat(result.writtenUw()).isEmpty();
            assertThat(read(limitFile(p0))).isEqualTo("200000000\n");
        }
    }

    /** The mode bits alone: effective only for a non-root agent, so skipped where the tests run as root. */
    @Test
    void aReadOnlyLimitFileBlocksANonRootAgent() throws IOException {
        Path p0 = host.intelPackage(0);
        Files.setPosixFilePermissions(limitFile(p0), PosixFilePermissions.fromString("r--r--r--"));
        assumeFalse(Files.isWritable(limitFile(p0)), "running as root: file modes do not stop root");
        try (Powercap powercap = open()) {
            CapResult result = powercap.applyNodeCap(100);
            assertThat(result.outcome()).isEqualTo(Outcome.BLOCKED);
            assertThat(result.message()).contains("EACCES");
            assertThat(read(limitFile(p0))).isEqualTo("200000000\n");
        }
    }

    /** The immutable attribute stops root as well: open for writing fails with EPERM (needs chattr and ext4/xfs/btrfs). */
    @Test
    void anImmutableLimitFileBlocksEvenRoot() throws IOException, InterruptedException {
        Path p0 = host.intelPackage(0);
        assumeTrue(chattr("+i", limitFile(p0)), "chattr +i is not available here");
        try (Powercap powercap = open()) {
            CapResult result = powercap.applyNodeCap(100);
            assertThat(result.outcome()).isEqualTo(Outcome.BLOCKED);
            assertThat(result.message()).isEqualTo("intel-rapl:0: long_term limit not writable: open " + limitFile(p0)
                    + ": EPERM (1, operation not permitted)");
            assertThat(read(limitFile(p0))).isEqualTo("200000000\n");
        } finally {
            chattr("-i", limitFile(p0));
        }
    }

    private static boolean chattr(String attribute, Path file) throws InterruptedException {
        try {
            return new ProcessBuilder("chattr", attribute, file.toString()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void aLimitPathThatIsADirectoryIsAnErrorAndNothingIsWritten() throws IOException {
        Path p0 = host.intelPackage(0);
        Path p1 = host.intelPackage(1);
        Files.delete(limitFile(p1));
        Files.createDirectory(limitFile(p1));
        try (Powercap powercap = open()) {
            CapResult result = powercap.applyNodeCap(240);
            assertThat(result.outcome()).isEqualTo(Outcome.ERROR);
            assertThat(result.message()).isEqualTo("intel-rapl:1: cannot read constraints: pread " + limitFile(p1)
                    + ": EISDIR (21, is a directory)");
            assertThat(read(limitFile(p0))).isEqualTo("200000000\n");
        }
    }

    /**
     * The second package's limit is a symlink to /proc/self/oom_score_adj: it reads as a number and opens
     * for writing, but the kernel rejects 120000000 (EINVAL). The first package, already written, gets its
     * previous limit back.
     */
    @Test
    void aWriteTheKernelRejectsRollsBackThePackagesAlreadyWritten() throws IOException {
        Path oomScoreAdj = Path.of("/proc/self/oom_score_adj");
        assumeTrue(Files.isWritable(oomScoreAdj));
        Path p0 = host.intelPackage(0);
        Path p1 = host.intelPackage(1);
        Files.delete(limitFile(p1));
        Files.createSymbolicLink(limitFile(p1), oomScoreAdj);
        try (Powercap powercap = open()) {
            CapResult result = powercap.applyNodeCap(240);
            assertThat(result.outcome()).isEqualTo(Outcome.ERROR);
            assertThat(result.message()).isEqualTo("intel-rapl:1: pwrite " + limitFile(p1) + ": EINVAL (22, invalid argument)"
                    + "; intel-rapl:0 rolled back to 200000000 uW");
            assertThat(result.writtenUw()).isEmpty();
            assertThat(read(limitFile(p0))).isEqualTo("200000000");
        }
    }

    @Test
    void theMsrLockBitBlocksTheCap() throws IOException {
        Path p0 = host.intelPackage(0);
        host.intelMsr(0, 1L << 63 | 1L << 15 | 1000);
        try (Msr msr = FfmMsr.open(HostRoots.under(root), CpuVendor.INTEL); Powercap powercap = SysfsPowercap.open(host.sys(), new FfmSysfsFiles(), msr)) {
            assertThat(powercap.writable()).isFalse();
            CapResult result = powercap.applyNodeCap(100);
            assertThat(result.outcome()).isEqualTo(Outcome.BLOCKED);
            assertThat(result.message()).isEqualTo("intel-rapl:0: long_term limit locked by firmware (MSR 0x610 bit 63)");
            assertThat(read(limitFile(p0))).isEqualTo("200000000\n");
        }
    }

    @Test
    void anUnlockedMsrLetsTheCapThrough() throws IOException {
        Path p0 = host.intelPackage(0);
        host.intelMsr(0, 1L << 15 | 1000);
        try (Msr msr = FfmMsr.open(HostRoots.under(root), CpuVendor.INTEL); Powercap powercap = SysfsPowercap.open(host.sys(), new FfmSysfsFiles(), msr)) {
            assertThat(powercap.writable()).isTrue();
            assertThat(powercap.applyNodeCap(100).outcome()).isEqualTo(Outcome.APPLIED);
            assertThat(read(limitFile(p0))).isEqualTo("100000000");
        }
    }

    @Test
    void restoreWritesBackTheLimitsFoundAtStart() throws IOException {
        Path p0 = host.intelPackage(0);
        Path p1 = host.intelPackage(1);
        FakeHost.write(limitFile(p1), "180000000");
        try (Powercap powercap = open()) {
            assertThat(powercap.snapshot()).containsExactly(new LimitSnapshot("intel-rapl:0", 0, 200_000_000),
                    new LimitSnapshot("intel-rapl:1", 0, 180_000_000));
            powercap.applyNodeCap(240);
            assertThat(read(limitFile(p1))).isEqualTo("120000000");

            CapResult restored = powercap.restore();
            assertThat(restored.outcome()).isEqualTo(Outcome.APPLIED);
            assertThat(restored.message()).isEqualTo("restored the original long_term limits on 2 zones");
            assertThat(read(limitFile(p0))).isEqualTo("200000000");
            assertThat(read(limitFile(p1))).isEqualTo("180000000");
            assertThat(restored.observedUw()).isEqualTo(Map.of("intel-rapl:0", 200_000_000L, "intel-rapl:1", 180_000_000L));
        }
    }

    @Test
    void restoreReportsALimitThatCanNoLongerBeWrittenAndRestoresTheOthers() throws IOException {
        assumeTrue(Files.isReadable(NativeFileTest.READ_ONLY_SYSFS_ATTRIBUTE));
        Path p0 = host.intelPackage(0);
        Path p1 = host.intelPackage(1);
        try (Powercap powercap = open()) {
            powercap.applyNodeCap(240);
            Files.delete(limitFile(p0));
            Files.createSymbolicLink(limitFile(p0), NativeFileTest.READ_ONLY_SYSFS_ATTRIBUTE);
            CapResult restored = powercap.restore();
            assertThat(restored.outcome()).isEqualTo(Outcome.BLOCKED);
            assertThat(restored.message()).startsWith("restore failed: intel-rapl:0: open " + limitFile(p0) + ": E");
            assertThat(read(limitFile(p1))).isEqualTo("200000000");
        }
    }

    @Test
    void withoutPowercapTheHostHasNoZonesAndEveryCapIsBlocked() throws IOException {
        try (Powercap powercap = open()) {
            assertThat(powercap.packages()).isEmpty();
            assertThat(powercap.writable()).isFalse();
            CapResult result = powercap.applyNodeCap(100);
            assertThat(result.outcome()).isEqualTo(Outcome.BLOCKED);
            assertThat(result.message()).isEqualTo("powercap not available on this host");
        }
    }
}
