package io.joulie.agent.host.ffm;

import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.NodeFacts;
import io.joulie.agent.control.cpu.CpuBackend;
import io.joulie.agent.control.cpu.HostCpuControl;
import io.joulie.agent.host.CapRequest;
import io.joulie.agent.host.CapResult;
import io.joulie.agent.host.Host;
import io.joulie.agent.host.HostCapabilities;
import io.joulie.agent.host.HostRoots;
import io.joulie.agent.host.KeptOriginals;
import io.joulie.agent.host.OriginalsKind;
import io.joulie.agent.host.PowercapZone;
import io.joulie.agent.inventory.HostInventory;
import io.joulie.agent.power.PackagePowerMeter;
import io.joulie.api.v1alpha1.ControlResult;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.NodeHardwareStatus.Control;
import io.joulie.testkit.FakeClock;
import io.joulie.testkit.FakeHost;
import io.joulie.testkit.FakeHost.CpufreqDriver;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.stream.Stream;

import static io.joulie.testkit.FakeHost.read;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The compatibility matrix's CPU rows (docs/install.md, "Hardware and drivers"): the agent's real host layer (FFM,
 * {@link FfmHost#open}) on fake trees laid out as each kernel driver lays out its files, and what the agent reports
 * (capability labels, NodeHardware's {@code cpu.control}) and does with a cap (which files it writes, or why none).
 * The layouts are written from the kernel's sources (drivers/powercap/intel_rapl_msr.c and intel_rapl_common.c,
 * powercap_sys.c, drivers/cpufreq/amd-pstate.c, acpi-cpufreq.c, intel_pstate.c; the out-of-tree amd_energy module);
 * see {@link FakeHost#amdPackage}, {@link FakeHost#amdEnergyHwmon} and {@link FakeHost.CpufreqDriver}. A fake tree is
 * not hardware: these tests show what the agent does on those layouts, not that the kernel or the CPU honours it.
 */
class DriverLayoutsTest {
    static final long MIN_KHZ = 400_000;
    static final long MAX_KHZ = 3_700_000;
    static final long CEILING_KHZ = 3_700_000;
    static final int POLICIES = 4;

    @TempDir
    Path root;
    FakeHost fake;
    final FakeClock clock = new FakeClock();
    final List<Path> ceilings = new ArrayList<>();

    @BeforeEach
    void setUp() throws IOException {
        fake = new FakeHost(root);
        fake.bootId(FakeHost.FIRST_BOOT_ID);
        Files.createDirectories(fake.dev()); // no MSR device: the MSR is read nowhere in these rows
    }

    private void intelXeon() {
        fake.cpuinfo("GenuineIntel", "Intel(R) Xeon(R) Platinum 8480+", 6, 143); // Sapphire Rapids
        fake.intelPackage(0);
        fake.intelPackage(1);
    }

    private void amdEpyc() {
        fake.cpuinfo("AuthenticAMD", "AMD EPYC 9654 96-Core Processor", 25, 17); // family 19h, Genoa
    }

    private void policies(CpufreqDriver driver) {
        for (int cpu = 0; cpu < POLICIES; cpu++) {
            ceilings.add(fake.cpufreqPolicy(cpu, driver, MIN_KHZ, MAX_KHZ, CEILING_KHZ));
            fake.topology(cpu, cpu < POLICIES / 2 ? 0 : 1);
        }
    }

    private Host open() throws IOException {
        return FfmHost.open(new HostRoots(fake.sys(), fake.proc(), fake.dev()));
    }

    private static HostCpuControl control(Host host, FakeClock clock) {
        return new HostCpuControl(host.powercap(), host.cpufreq(), KeptOriginals.inMemory(OriginalsKind.CPU), clock);
    }

    private static NodeHardwareStatus.Cpu inventory(Host host, HostCapabilities capabilities) {
        return new HostInventory(host, capabilities.raplWritable()).of("n", null, List.of(), Optional.empty()).orElseThrow().cpu();
    }

    private List<String> ceilingsNow() {
        return ceilings.stream().map(f -> read(f).strip()).toList();
    }

    /** Every {@code constraint_*} file under the powercap devices: the kernel's only files a RAPL cap writes. */
    private List<Path> constraintFiles() throws IOException {
        if (!Files.isDirectory(fake.powercapDevices())) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(fake.powercapDevices())) {
            return files.filter(f -> f.getFileName().toString().startsWith("constraint_")).toList();
        }
    }

    /** Adds {@code joules} to each package zone's energy counter, as the hardware does between two readings. */
    private static void consume(Host host, Path sys, long joules) {
        for (PowercapZone zone : host.powercap().packages()) {
            Path counter = sys.resolve("class/powercap").resolve(zone.id()).resolve("energy_uj");
            FakeHost.write(counter, Long.toString(Long.parseLong(read(counter).strip()) + joules * 1_000_000));
        }
    }

    @ParameterizedTest
    @EnumSource(value = CpufreqDriver.class, names = {"INTEL_PSTATE_ACTIVE", "ACPI_CPUFREQ"})
    void intelRaplIsCappedThroughItsLongTermLimitsAndCpufreqIsLeftAlone(CpufreqDriver driver) throws IOException {
        intelXeon();
        policies(driver);
        try (Host host = open()) {
            HostCapabilities capabilities = host.capabilities();
            assertThat(capabilities.labels()).containsEntry(HostCapabilities.LABEL_PREFIX + "rapl", "true")
                    .containsEntry(JoulieApi.FEATURE_RAPL_WRITABLE, "true").containsEntry(JoulieApi.FEATURE_CPUFREQ, "true")
                    .containsEntry(HostCapabilities.LABEL_PREFIX + "cpu-vendor", "intel");
            NodeHardwareStatus.Cpu cpu = inventory(host, capabilities);
            assertThat(cpu.control()).isEqualTo(Control.POWERCAP);
            assertThat(cpu.packages()).extracting(NodeHardwareStatus.CpuPackage::zone).containsExactly("intel-rapl:0", "intel-rapl:1");
            assertThat(cpu.packages()).extracting(NodeHardwareStatus.CpuPackage::maxWatts).containsExactly(250.0, 250.0);

            ControlOutcome outcome = control(host, clock).enforce(300, OptionalDouble.empty());
            assertThat(outcome.backend()).isEqualTo(CpuBackend.POWERCAP);
            assertThat(outcome.result()).isEqualTo(ControlResult.APPLIED);
            assertThat(fake.limit(0)).isEqualTo("150000000");
            assertThat(fake.limit(1)).isEqualTo("150000000");
            assertThat(ceilingsNow()).as("no cpufreq ceiling touched").containsOnly(Long.toString(CEILING_KHZ));
        }
    }

    @ParameterizedTest
    @EnumSource(value = CpufreqDriver.class, names = {"AMD_PSTATE_ACTIVE", "AMD_PSTATE_PASSIVE", "AMD_PSTATE_GUIDED", "ACPI_CPUFREQ"})
    void amdRaplCountsEnergyOnlySoAWattsCapGoesThroughTheDvfsLoop(CpufreqDriver driver) throws IOException {
        amdEpyc();
        fake.amdPackage(0, 1_000_000);
        fake.amdPackage(1, 1_000_000);
        policies(driver);
        assertThat(read(ceilings.getFirst().resolveSibling("scaling_driver")).strip()).isEqualTo(driver.scalingDriver());
        try (Host host = open()) {
            HostCapabilities capabilities = host.capabilities();
            assertThat(capabilities.labels()).containsEntry(HostCapabilities.LABEL_PREFIX + "rapl", "true")
                    .containsEntry(JoulieApi.FEATURE_RAPL_WRITABLE, "false").containsEntry(JoulieApi.FEATURE_CPUFREQ, "true")
                    .containsEntry(HostCapabilities.LABEL_PREFIX + "cpu-vendor", "amd");
            assertThat(host.powercap().packages()).extracting(PowercapZone::id).containsExactly("intel-rapl:0", "intel-rapl:1");
            NodeHardwareStatus.Cpu cpu = inventory(host, capabilities);
            assertThat(cpu.control()).isEqualTo(Control.DVFS);
            assertThat(cpu.packages()).extracting(NodeHardwareStatus.CpuPackage::maxWatts).containsOnlyNulls();

            PackagePowerMeter meter = new PackagePowerMeter(host.powercap(), clock);
            meter.sampleWatts();
            HostCpuControl control = control(host, clock);
            ControlOutcome outcome = null;
            for (int reading = 0; reading < 2; reading++) { // 400 W measured against a 200 W cap: two readings above the band
                consume(host, fake.sys(), 200);
                clock.advance(Duration.ofSeconds(1));
                OptionalDouble watts = meter.sampleWatts();
                assertThat(watts).as("package power from the zones' energy_uj").hasValue(400.0);
                outcome = control.enforce(200, watts);
            }
            assertThat(outcome.backend()).isEqualTo(CpuBackend.DVFS);
            assertThat(outcome.result()).isEqualTo(ControlResult.APPLIED);
            assertThat(outcome.message()).contains("intel-rapl:0 (package-0): no power limit, only an energy counter")
                    .doesNotContain("enabled = 0");
            assertThat(ceilingsNow()).as("10 % throttle: the first of four policies at its minimum")
                    .containsExactly(Long.toString(MIN_KHZ), Long.toString(CEILING_KHZ), Long.toString(CEILING_KHZ), Long.toString(CEILING_KHZ));
            assertThat(constraintFiles()).as("no power-limit file made or written").isEmpty();

            ControlOutcome percent = control.enforce(new CapRequest.Percent(60), NodeFacts.of(OptionalDouble.of(400)));
            assertThat(percent.result()).isEqualTo(ControlResult.BLOCKED);
            assertThat(percent.message()).contains("a percent cap needs the packages' long-term maxima");

            assertThat(control.restore().result()).isEqualTo(ControlResult.APPLIED);
            assertThat(ceilingsNow()).containsOnly(Long.toString(CEILING_KHZ));
        }
    }

    @Test
    void amdEnergyHwmonAloneIsNotReadSoCpufreqIsNoControlAndNothingIsWritten() throws IOException {
        amdEpyc();
        fake.amdEnergyHwmon(0, 2, 4); // the out-of-tree amd_energy module, intel_rapl_msr not loaded
        policies(CpufreqDriver.ACPI_CPUFREQ);
        try (Host host = open()) {
            HostCapabilities capabilities = host.capabilities();
            assertThat(capabilities.labels()).containsEntry(HostCapabilities.LABEL_PREFIX + "rapl", "false")
                    .containsEntry(JoulieApi.FEATURE_RAPL_WRITABLE, "false").containsEntry(JoulieApi.FEATURE_CPUFREQ, "true");
            NodeHardwareStatus.Cpu cpu = inventory(host, capabilities);
            assertThat(cpu.control()).as("the DVFS loop would have no package power to steer by").isEqualTo(Control.NONE);
            assertThat(cpu.message()).contains(HostInventory.NO_ENERGY_FOR_DVFS);

            PackagePowerMeter meter = new PackagePowerMeter(host.powercap(), clock);
            assertThat(meter.sampleWatts()).isEmpty();
            clock.advance(Duration.ofSeconds(1));
            OptionalDouble watts = meter.sampleWatts();
            assertThat(watts).isEmpty();
            ControlOutcome outcome = control(host, clock).enforce(200, watts);
            assertThat(outcome.result()).isEqualTo(ControlResult.BLOCKED);
            assertThat(outcome.message()).contains("no RAPL zones").contains("no power reading for the DVFS loop");
            assertThat(ceilingsNow()).containsOnly(Long.toString(CEILING_KHZ));
        }
    }

    @Test
    void amdRaplWithoutCpufreqHasNoControlAndSaysWhy() throws IOException {
        amdEpyc();
        fake.amdPackage(0, 1_000_000);
        try (Host host = open()) {
            HostCapabilities capabilities = host.capabilities();
            assertThat(capabilities.labels()).containsEntry(JoulieApi.FEATURE_RAPL_WRITABLE, "false")
                    .containsEntry(JoulieApi.FEATURE_CPUFREQ, "false");
            assertThat(inventory(host, capabilities).control()).isEqualTo(Control.NONE);

            ControlOutcome outcome = control(host, clock).enforce(200, OptionalDouble.of(300));
            assertThat(outcome.backend()).isEqualTo(CpuBackend.POWERCAP);
            assertThat(outcome.result()).isEqualTo(ControlResult.BLOCKED);
            assertThat(outcome.message()).isEqualTo("intel-rapl:0 (package-0): no power limit, only an energy counter (no constraint "
                    + "files: the kernel shows none where the package has no RAPL power-limit register, as on AMD and Hygon)");
            assertThat(constraintFiles()).isEmpty();
        }
    }

    /** The powercap framework names zones {@code "%s:%x"}: from the eleventh on, the id is hexadecimal. */
    @Test
    void zoneIdsAreHexadecimalSoAnEleventhPackageIsCappedToo() throws IOException {
        fake.cpuinfo("GenuineIntel", "Intel(R) Xeon(R) Test CPU");
        List<Path> limits = new ArrayList<>();
        for (int n = 0; n < 11; n++) {
            Path zone = fake.zone("intel-rapl:" + Integer.toHexString(n), "package-" + n, 1_000_000);
            fake.constraint(zone, 0, "long_term", FakeHost.ORIGINAL_LIMIT_UW, FakeHost.DEFAULT_MAX_UW, 999_424);
            limits.add(FakeHost.limitFile(zone));
        }
        try (Host host = open()) {
            assertThat(host.powercap().packages()).hasSize(11).last()
                    .satisfies(z -> assertThat(z.id()).isEqualTo("intel-rapl:a"))
                    .satisfies(z -> assertThat(z.packageIndex()).isEqualTo(10));
            CapResult result = host.powercap().apply(new CapRequest.Watts(1100));
            assertThat(result.outcome()).isEqualTo(CapResult.Outcome.APPLIED);
            assertThat(limits).allSatisfy(f -> assertThat(read(f).strip()).isEqualTo("100000000"));
            assertThat(HostCpuControl.packages(Map.of("intel-rapl:a", 100_000_000L)))
                    .singleElement().satisfies(d -> assertThat(d.index()).isEqualTo(10));
        }
    }
}
