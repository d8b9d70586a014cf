package io.joulie.agent.host;

import io.joulie.agent.host.ffm.FfmHost;
import io.joulie.testkit.FakeHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class HostCapabilitiesTest {
    /** Kubernetes label values: at most 63 characters, alphanumeric at both ends, '-', '_', '.' inside. */
    static final String LABEL_VALUE = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
    static final String ARCH = System.getProperty("os.arch");

    @TempDir
    Path root;

    @Test
    void anIntelServerWithEverythingAvailable() throws IOException {
        FakeHost host = new FakeHost(root);
        host.cpuinfo("GenuineIntel", "Intel(R) Xeon(R) Gold 6430");
        host.cgroupV2();
        host.intelPackage(0);
        host.intelPackage(1);
        host.intelMsr(0, 1L << 15 | 1000);
        host.cpufreqPolicy(0, 800_000, 3_500_000, 3_500_000);

        try (Host node = FfmHost.open(HostRoots.under(root))) {
            HostCapabilities capabilities = node.capabilities();
            assertThat(capabilities).isEqualTo(new HostCapabilities(true, true, true, true, CpuVendor.INTEL,
                    "Intel(R) Xeon(R) Gold 6430", ARCH, HostCapabilities.CgroupVersion.V2));
            assertThat(capabilities.labels()).containsExactly(
                    Map.entry("feature.joulie.io/rapl", "true"),
                    Map.entry("feature.joulie.io/rapl-writable", "true"),
                    Map.entry("feature.joulie.io/msr", "true"),
                    Map.entry("feature.joulie.io/cpufreq", "true"),
                    Map.entry("feature.joulie.io/cpu-vendor", "intel"),
                    Map.entry("feature.joulie.io/cgroup", "v2"));
            assertThat(capabilities.labels().values()).allSatisfy(v -> assertThat(v).matches(LABEL_VALUE).hasSizeLessThanOrEqualTo(63));
        }
    }

    @Test
    void aBareHostOffersNothingAndRunsCgroupV1() throws IOException {
        try (Host node = FfmHost.open(HostRoots.under(root))) {
            HostCapabilities capabilities = node.capabilities();
            assertThat(capabilities).isEqualTo(new HostCapabilities(false, false, false, false, CpuVendor.OTHER, "", ARCH,
                    HostCapabilities.CgroupVersion.V1));
            assertThat(capabilities.labels()).containsEntry("feature.joulie.io/rapl", "false")
                    .containsEntry("feature.joulie.io/cpu-vendor", "other").containsEntry("feature.joulie.io/cgroup", "v1");
            assertThat(capabilities.labels().values()).allSatisfy(v -> assertThat(v).matches(LABEL_VALUE));
        }
    }

    @Test
    void anAmdHostWithRaplButAnUnreadableMsr() throws IOException {
        FakeHost host = new FakeHost(root);
        host.cpuinfo("AuthenticAMD", "AMD EPYC 9654 96-Core Processor");
        host.amdPackage(0, 1); // the kernel's RAPL driver names AMD zones intel-rapl:N too, with energy only
        host.msr(0, Map.of());

        try (Host node = FfmHost.open(HostRoots.under(root))) {
            HostCapabilities capabilities = node.capabilities();
            assertThat(capabilities.vendor()).isEqualTo(CpuVendor.AMD);
            assertThat(capabilities.rapl()).isTrue();
            assertThat(capabilities.raplWritable()).as("AMD's RAPL has no power-limit register").isFalse();
            assertThat(capabilities.msr()).isFalse();
            assertThat(capabilities.labels()).containsEntry("feature.joulie.io/cpu-vendor", "amd");
        }
    }

    @Test
    void aFirmwareLockMakesRaplReadOnly() throws IOException {
        FakeHost host = new FakeHost(root);
        host.cpuinfo("GenuineIntel", "Intel(R) Xeon(R) Processor");
        host.intelPackage(0);
        host.intelMsr(0, 1L << 63);

        try (Host node = FfmHost.open(HostRoots.under(root))) {
            assertThat(node.capabilities().labels()).containsEntry("feature.joulie.io/rapl", "true")
                    .containsEntry("feature.joulie.io/rapl-writable", "false")
                    .containsEntry("feature.joulie.io/msr", "true");
        }
    }
}
