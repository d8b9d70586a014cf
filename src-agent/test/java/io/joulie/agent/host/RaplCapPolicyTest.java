package io.joulie.agent.host;

import io.joulie.agent.host.CapResult.Outcome;
import io.joulie.agent.host.HostFileException.Kind;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The RAPL cap policy (bounds, firmware lock, all-or-nothing writes, restore) over the in-memory file port: the
 * same rules whatever moves the bytes. FfmSysfsPowercapTest runs them again through FFM on fake trees.
 */
class RaplCapPolicyTest {
    static final Path SYS = Path.of("/sys");
    static final Path POWERCAP = SYS.resolve("class/powercap");
    static final Path LIMIT_0 = limit(0);
    static final Path LIMIT_1 = limit(1);

    MemorySysfs files;

    @BeforeEach
    void twoPackages() {
        files = new MemorySysfs();
        pkg(0);
        pkg(1);
    }

    static Path limit(int pkg) {
        return POWERCAP.resolve("intel-rapl:" + pkg + "/constraint_0_power_limit_uw");
    }

    /** intel-rapl:N, package-N: long_term 200 W, at most 250 W, as intel_rapl reports it (no minimum). */
    void pkg(int n) {
        Path zone = POWERCAP.resolve("intel-rapl:" + n);
        files.put(zone.resolve("name"), "package-" + n).put(zone.resolve("energy_uj"), 1_000_000)
                .put(zone.resolve("constraint_0_name"), "long_term").put(zone.resolve("constraint_0_power_limit_uw"), 200_000_000)
                .put(zone.resolve("constraint_0_max_power_uw"), 250_000_000);
    }

    Powercap open(Msr msr) throws IOException {
        return SysfsPowercap.open(SYS, files, msr);
    }

    /** An MSR with power unit 1/8 W and the given lock bit; {@code unreadable}: every read fails. */
    static Msr msr(boolean locked, boolean unreadable) {
        return new Msr() {
            @Override
            public List<Integer> packages() {
                return List.of(0, 1);
            }

            @Override
            public Optional<PackageMsr> read(int packageIndex) throws IOException {
                if (unreadable) {
                    throw new IOException("msr unreadable");
                }
                PackageMsr.Units units = new PackageMsr.Units(0.125, 1.0 / (1 << 14));
                return Optional.of(new PackageMsr(units, 0, Optional.of(new PackageMsr.PowerLimit(125, true, 150, true, locked)),
                        OptionalDouble.of(165)));
            }

            @Override
            public void close() {
            }
        };
    }

    @Test
    void theCapIsSharedEvenlyClampedToTheHardwareAndWrittenOnEveryPackage() throws IOException {
        CapResult result = open(Msr.absent()).applyNodeCap(5000);
        assertThat(result.outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(files.get(LIMIT_0)).isEqualTo("250000000");
        assertThat(files.get(LIMIT_1)).isEqualTo("250000000");
        assertThat(result.message()).isEqualTo("applied node cap 5000 W as long_term limit on 2 packages"
                + "; intel-rapl:0: 2500000000 uW clamped to hardware max 250000000 uW"
                + "; intel-rapl:1: 2500000000 uW clamped to hardware max 250000000 uW");
        assertThat(result.writtenUw()).isEqualTo(Map.of("intel-rapl:0", 250_000_000L, "intel-rapl:1", 250_000_000L));
        assertThat(result.observedUw()).isEqualTo(result.writtenUw());
    }

    @Test
    void aLimitTheHostRefusesToOpenBlocksBeforeAnyPackageIsWritten() throws IOException {
        files.refuseOpeningForWrite(LIMIT_1);
        Powercap powercap = open(Msr.absent());
        assertThat(powercap.writable()).isFalse();
        CapResult result = powercap.applyNodeCap(240);
        assertThat(result.outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(result.message()).isEqualTo("intel-rapl:1: long_term limit not writable: open " + LIMIT_1 + ": refused");
        assertThat(result.writtenUw()).isEmpty();
        assertThat(files.get(LIMIT_0)).isEqualTo("200000000");
        assertThat(result.observedUw()).isEqualTo(Map.of("intel-rapl:0", 200_000_000L, "intel-rapl:1", 200_000_000L));
    }

    @Test
    void aWriteThatFailsPutsBackThePackagesAlreadyWritten() throws IOException {
        files.failWrite(LIMIT_1, null, Kind.FAULT);
        CapResult result = open(Msr.absent()).applyNodeCap(240);
        assertThat(result.outcome()).isEqualTo(Outcome.ERROR);
        assertThat(result.message()).isEqualTo("intel-rapl:1: write " + LIMIT_1 + ": FAULT; intel-rapl:0 rolled back to 200000000 uW");
        assertThat(result.writtenUw()).isEmpty();
        assertThat(files.get(LIMIT_0)).isEqualTo("200000000");
    }

    @Test
    void aWriteTheHostRefusesIsBlockedAndRolledBackToo() throws IOException {
        files.failWrite(LIMIT_1, null, Kind.REFUSED);
        CapResult result = open(Msr.absent()).applyNodeCap(240);
        assertThat(result.outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(result.message()).endsWith("; intel-rapl:0 rolled back to 200000000 uW");
        assertThat(files.get(LIMIT_0)).isEqualTo("200000000");
    }

    @Test
    void aRollbackThatFailsIsNamedInTheMessage() throws IOException {
        files.failWrite(LIMIT_1, null, Kind.FAULT).failWrite(LIMIT_0, "200000000", Kind.FAULT);
        CapResult result = open(Msr.absent()).applyNodeCap(240);
        assertThat(result.outcome()).isEqualTo(Outcome.ERROR);
        assertThat(result.message()).isEqualTo("intel-rapl:1: write " + LIMIT_1 + ": FAULT; rollback of intel-rapl:0 failed: write "
                + LIMIT_0 + ": FAULT");
        assertThat(files.get(LIMIT_0)).isEqualTo("120000000");
        assertThat(result.observedUw()).isEqualTo(Map.of("intel-rapl:0", 120_000_000L, "intel-rapl:1", 200_000_000L));
    }

    @Test
    void theFirmwareLockBlocksButAnUnreadableMsrProvesNothing() throws IOException {
        Powercap locked = open(msr(true, false));
        assertThat(locked.writable()).isFalse();
        CapResult result = locked.applyNodeCap(100);
        assertThat(result.outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(result.message()).isEqualTo("intel-rapl:0: long_term limit locked by firmware (MSR 0x610 bit 63)");
        assertThat(files.get(LIMIT_0)).isEqualTo("200000000");

        Powercap unreadable = open(msr(false, true));
        assertThat(unreadable.writable()).isTrue();
        assertThat(unreadable.applyNodeCap(100).outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(files.get(LIMIT_0)).isEqualTo("50000000");
    }

    @Test
    void withoutAReportedMaximumTheRaplFieldBoundsTheCapAndWithoutAnMsrBlocksIt() throws IOException {
        files.put(POWERCAP.resolve("intel-rapl:0/constraint_0_max_power_uw"), 0);
        CapResult blocked = open(Msr.absent()).applyNodeCap(200);
        assertThat(blocked.outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(blocked.message()).startsWith("intel-rapl:0: no hardware maximum known");
        assertThat(files.get(LIMIT_1)).isEqualTo("200000000");

        CapResult bounded = open(msr(false, false)).applyNodeCap(10_000);
        assertThat(bounded.outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(files.get(LIMIT_0)).isEqualTo("4095875000"); // 0x7FFF x 1/8 W
        assertThat(files.get(LIMIT_1)).isEqualTo("250000000");
    }

    @Test
    void aPercentIsTakenOfEachPackagesOwnLongTermMaximum() throws IOException {
        files.put(POWERCAP.resolve("intel-rapl:1/constraint_0_max_power_uw"), 200_000_000);
        CapResult result = open(Msr.absent()).apply(new CapRequest.Percent(60));
        assertThat(result.outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(files.get(LIMIT_0)).isEqualTo("150000000");
        assertThat(files.get(LIMIT_1)).isEqualTo("120000000");
        assertThat(result.message()).isEqualTo("applied 60 % of each package's maximum (node cap 270 W) as long_term limit on 2 packages");
    }

    @Test
    void withoutAReportedMaximumAPercentIsTakenOfTheTdpTheMsrReportsAndWithoutEitherItIsBlocked() throws IOException {
        files.put(POWERCAP.resolve("intel-rapl:0/constraint_0_max_power_uw"), 0);
        CapResult blocked = open(Msr.absent()).apply(new CapRequest.Percent(60));
        assertThat(blocked.outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(blocked.message()).isEqualTo("intel-rapl:0: no long-term maximum to take a percent of "
                + "(max_power_uw not reported, MSR_PKG_POWER_INFO not readable)");
        assertThat(files.get(LIMIT_0)).isEqualTo("200000000");
        assertThat(files.get(LIMIT_1)).isEqualTo("200000000");

        CapResult ofTdp = open(msr(false, false)).apply(new CapRequest.Percent(60));
        assertThat(ofTdp.outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(files.get(LIMIT_0)).as("60 % of the 165 W TDP").isEqualTo("99000000");
        assertThat(files.get(LIMIT_1)).as("60 % of max_power_uw").isEqualTo("150000000");
    }

    @Test
    void aPercentIsClampedToTheReportedMinimumAndAPercentOutOfRangeReachesNoPackage() throws IOException {
        files.put(POWERCAP.resolve("intel-rapl:0/constraint_0_min_power_uw"), 100_000_000);
        Powercap powercap = open(Msr.absent());
        CapResult clamped = powercap.apply(new CapRequest.Percent(20));
        assertThat(clamped.outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(clamped.message()).endsWith("; intel-rapl:0: 50000000 uW clamped to hardware min 100000000 uW");
        assertThat(files.get(LIMIT_0)).isEqualTo("100000000");
        assertThat(files.get(LIMIT_1)).isEqualTo("50000000");

        for (double bad : new double[]{0, -5, 100.5, Double.NaN}) {
            CapResult refused = powercap.apply(new CapRequest.Percent(bad));
            assertThat(refused.outcome()).isEqualTo(Outcome.BLOCKED);
            assertThat(refused.message()).startsWith("invalid node cap: cap " + bad + " % is not a percent in (0, 100]");
        }
        assertThat(files.get(LIMIT_0)).isEqualTo("100000000");
        assertThat(files.get(LIMIT_1)).isEqualTo("50000000");
    }

    @Test
    void restorePutsBackWhatWasFoundAtStartAndNamesALimitItCannotWrite() throws IOException {
        files.put(LIMIT_1, 180_000_000);
        Powercap powercap = open(Msr.absent());
        assertThat(powercap.snapshot()).containsExactly(new LimitSnapshot("intel-rapl:0", 0, 200_000_000),
                new LimitSnapshot("intel-rapl:1", 0, 180_000_000));
        powercap.applyNodeCap(240);
        files.refuseOpeningForWrite(LIMIT_0);

        CapResult restored = powercap.restore();
        assertThat(restored.outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(restored.message()).isEqualTo("restore failed: intel-rapl:0: open " + LIMIT_0 + ": refused");
        assertThat(files.get(LIMIT_1)).isEqualTo("180000000");
        assertThat(files.get(LIMIT_0)).isEqualTo("120000000");
    }

    /** A top-level zone {@code intel-rapl:<n>} named {@code name}, long_term 200 W, at most {@code maxUw}. */
    void zone(int n, String name, long maxUw) {
        Path zone = POWERCAP.resolve("intel-rapl:" + n);
        files.put(zone.resolve("name"), name).put(zone.resolve("energy_uj"), 1_000_000).put(zone.resolve("enabled"), 1)
                .put(zone.resolve("constraint_0_name"), "long_term").put(zone.resolve("constraint_0_power_limit_uw"), 200_000_000)
                .put(zone.resolve("constraint_0_max_power_uw"), maxUw);
    }

    /** The kernel names the platform zones psys (one) and psys-N (one per package on multi-package TPMI systems). */
    @Test
    void platformZonesAreNeverWrittenNorCountedAsPackages() throws IOException {
        zone(2, "psys", 500_000_000);
        zone(3, "psys-1", 500_000_000);
        zone(4, "psys-2", 500_000_000);
        zone(5, "dram", 50_000_000); // a name this agent does not know as a package
        Powercap powercap = open(Msr.absent());
        assertThat(powercap.packages()).extracting(PowercapZone::id).containsExactly("intel-rapl:0", "intel-rapl:1");

        CapResult result = powercap.applyNodeCap(240);
        assertThat(result.outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(result.message()).isEqualTo("applied node cap 240 W as long_term limit on 2 packages");
        assertThat(files.get(LIMIT_0)).isEqualTo("120000000");
        assertThat(files.get(LIMIT_1)).isEqualTo("120000000");
        for (int platform = 2; platform <= 5; platform++) {
            assertThat(files.get(limit(platform))).as("intel-rapl:" + platform).isEqualTo("200000000");
        }
        assertThat(powercap.restore().writtenUw()).containsOnlyKeys("intel-rapl:0", "intel-rapl:1");
    }

    /**
     * Multi-die parts have one zone per die, named package-P-die-D, registered in any order: the cap is shared per
     * package first, then over the package's dies; the physical package id comes from the name, not the zone number.
     */
    @Test
    void diesShareTheirPackagesPartOfTheNodeCap() throws IOException {
        files = new MemorySysfs();
        zone(0, "package-1-die-0", 250_000_000);
        zone(1, "package-0-die-0", 250_000_000);
        zone(2, "package-0-die-1", 250_000_000);
        zone(3, "psys", 500_000_000);
        Powercap powercap = open(Msr.absent());
        assertThat(powercap.packages()).extracting(PowercapZone::id, PowercapZone::packageIndex)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("intel-rapl:1", 0), org.assertj.core.groups.Tuple.tuple("intel-rapl:2", 0),
                        org.assertj.core.groups.Tuple.tuple("intel-rapl:0", 1));

        CapResult result = powercap.applyNodeCap(400);
        assertThat(result.outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(result.message()).isEqualTo("applied node cap 400 W as long_term limit on 2 packages (3 dies)");
        assertThat(result.writtenUw()).isEqualTo(Map.of("intel-rapl:1", 100_000_000L, "intel-rapl:2", 100_000_000L,
                "intel-rapl:0", 200_000_000L));
        assertThat(files.get(limit(3))).isEqualTo("200000000");
    }

    /** A percent is taken of each die's own maximum; the message gives the watts the node gets. */
    @Test
    void aPercentOnDiesIsTakenOfEachDiesMaximum() throws IOException {
        files = new MemorySysfs();
        zone(0, "package-0-die-0", 250_000_000);
        zone(1, "package-0-die-1", 150_000_000);
        zone(2, "package-1-die-0", 300_000_000);
        CapResult result = open(Msr.absent()).apply(new CapRequest.Percent(50));
        assertThat(result.outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(result.writtenUw()).isEqualTo(Map.of("intel-rapl:0", 125_000_000L, "intel-rapl:1", 75_000_000L,
                "intel-rapl:2", 150_000_000L));
        assertThat(result.message()).isEqualTo("applied 50 % of each package's maximum (node cap 350 W) as long_term limit on "
                + "2 packages (3 dies)");
    }

    @Test
    void aPercentMeetsTheFloorPackageByPackage() throws IOException {
        files.put(POWERCAP.resolve("intel-rapl:1/constraint_0_max_power_uw"), 100_000_000);
        Powercap powercap = SysfsPowercap.open(SYS, files, Msr.absent(), 10, List.of());
        CapResult below = powercap.apply(new CapRequest.Percent(8));
        assertThat(below.outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(below.message()).isEqualTo("cap 8 % is 8 W on package 1, below the floor of 10 W per package");
        assertThat(files.get(LIMIT_0)).as("package 0 (250 W: 20 W) is not written either").isEqualTo("200000000");
        assertThat(powercap.apply(new CapRequest.Percent(10)).outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(files.get(LIMIT_1)).isEqualTo("10000000");
    }

    @Test
    void aZoneWhoseLimitIsNotEnforcedBlocksTheCapWithTheReason() throws IOException {
        files.put(POWERCAP.resolve("intel-rapl:1/enabled"), 0);
        Powercap powercap = open(Msr.absent());
        assertThat(powercap.writable()).isFalse();
        CapResult result = powercap.applyNodeCap(240);
        assertThat(result.outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(result.message()).isEqualTo("intel-rapl:1 (package-1): power limiting is disabled (enabled = 0), so a limit "
                + "written would not be enforced; the agent does not turn it on");
        assertThat(files.get(LIMIT_0)).isEqualTo("200000000");
        assertThat(files.get(POWERCAP.resolve("intel-rapl:1/enabled"))).isEqualTo("0");
    }

    /** Intel reports no minimum and the kernel truncates to power units: the floor keeps nonsense caps off the hardware. */
    @Test
    void noPackageShareBelowTheFloorIsWritten() throws IOException {
        Powercap powercap = SysfsPowercap.open(SYS, files, Msr.absent(), 10, List.of());
        CapResult below = powercap.applyNodeCap(19.5);
        assertThat(below.outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(below.message()).isEqualTo("node cap 19.5 W is 9.75 W per package, below the floor of 10 W per package");
        assertThat(files.get(LIMIT_0)).isEqualTo("200000000");
        assertThat(files.get(LIMIT_1)).isEqualTo("200000000");

        assertThat(powercap.applyNodeCap(20).outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(files.get(LIMIT_0)).isEqualTo("10000000");
    }

    /** A package whose maximum is below the floor can still be capped at its maximum, never below. */
    @Test
    void aPackageSmallerThanTheFloorHasItsMaximumAsFloor() throws IOException {
        files.put(POWERCAP.resolve("intel-rapl:0/constraint_0_max_power_uw"), 8_000_000)
                .put(POWERCAP.resolve("intel-rapl:1/constraint_0_max_power_uw"), 8_000_000);
        Powercap powercap = SysfsPowercap.open(SYS, files, Msr.absent(), 10, List.of());
        assertThat(powercap.applyNodeCap(15).message()).isEqualTo("node cap 15 W is 7.5 W per package, below the floor of 8 W per package");
        CapResult atMax = powercap.applyNodeCap(16);
        assertThat(atMax.outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(files.get(LIMIT_0)).isEqualTo("8000000");
    }

    @Test
    void originalsAnEarlierProcessKeptWinOverTheLimitsInForce() throws IOException {
        files.put(LIMIT_0, 60_000_000).put(LIMIT_1, 60_000_000); // what a crashed agent left
        Powercap powercap = SysfsPowercap.open(SYS, files, Msr.absent(), 10, List.of(new LimitSnapshot("intel-rapl:0", 0, 200_000_000)));
        assertThat(powercap.snapshot()).containsExactly(new LimitSnapshot("intel-rapl:0", 0, 200_000_000),
                new LimitSnapshot("intel-rapl:1", 0, 60_000_000));
        assertThat(powercap.restore().outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(files.get(LIMIT_0)).isEqualTo("200000000");
    }

    /**
     * Kept originals are checked against the zone before a restore writes them: a value outside the zone's bounds, or a
     * constraint other than its long_term one (a corrupted or tampered originals file), is not written and is named; the
     * zone stays as found, and the other zones are restored.
     */
    @Test
    void aKeptOriginalOutsideTheZonesBoundsOrOfAnotherConstraintIsNotWritten() throws IOException {
        files.put(LIMIT_0, 60_000_000).put(LIMIT_1, 60_000_000); // the caps a crashed agent left
        Powercap tampered = SysfsPowercap.open(SYS, files, msr(false, false), 0, List.of(
                new LimitSnapshot("intel-rapl:0", 0, 5_000_000_000L), new LimitSnapshot("intel-rapl:1", 0, 200_000_000)));
        CapResult restored = tampered.restore();
        assertThat(restored.outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(restored.message()).isEqualTo("restore failed: intel-rapl:0: the original 5000000000 uW (constraint 0) is outside "
                + "the zone's bounds [1, 4095875000] uW (the RAPL field's maximum); not written back, and the zone is left as "
                + "found; check the kept originals and set the limit by hand");
        assertThat(files.get(LIMIT_0)).as("left as found").isEqualTo("60000000");
        assertThat(files.get(LIMIT_1)).isEqualTo("200000000");

        files.put(POWERCAP.resolve("intel-rapl:0/constraint_1_name"), "short_term").put(POWERCAP.resolve("intel-rapl:0/constraint_1_power_limit_uw"), 300_000_000);
        Powercap otherConstraint = SysfsPowercap.open(SYS, files, Msr.absent(), 0, List.of(new LimitSnapshot("intel-rapl:0", 1, 200_000_000)));
        assertThat(otherConstraint.restore().message()).startsWith("restore failed: intel-rapl:0: the original 200000000 uW "
                + "(constraint 1): the zone's long_term constraint is 0;");
        assertThat(files.get(POWERCAP.resolve("intel-rapl:0/constraint_1_power_limit_uw"))).isEqualTo("300000000");

        // without a readable MSR, a firmware limit above max_power_uw (an unlocked board) is still a valid original
        Powercap unlocked = SysfsPowercap.open(SYS, files, Msr.absent(), 0, List.of(new LimitSnapshot("intel-rapl:0", 0, 4_095_000_000L)));
        assertThat(unlocked.restore().outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(files.get(LIMIT_0)).isEqualTo("4095000000");
        Powercap zero = SysfsPowercap.open(SYS, files, Msr.absent(), 0, List.of(new LimitSnapshot("intel-rapl:0", 0, 0)));
        assertThat(zero.restore().message()).contains("is outside the zone's bounds [1, 4095875000] uW (max_power_uw or the RAPL "
                + "field's maximum at 1/8 W)");
        assertThat(files.get(LIMIT_0)).isEqualTo("4095000000");
    }
}
