package io.joulie.agent.host.ffm;

import io.joulie.agent.host.Cpufreq;
import io.joulie.agent.host.CpufreqPolicy;
import io.joulie.agent.host.SysfsCpufreq;
import io.joulie.testkit.FakeHost;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.joulie.testkit.FakeHost.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class FfmSysfsCpufreqTest {
    @TempDir
    Path root;
    FakeHost host;
    Path policy0;
    Path policy2;
    Path policy10;

    @BeforeEach
    void setUp() {
        host = new FakeHost(root);
        policy10 = host.cpufreqPolicy(10, 800_000, 3_500_000, 3_000_000);
        policy2 = host.cpufreqPolicy(2, 1_000_000, 3_200_000, 3_200_000);
        policy0 = host.cpufreqPolicy(0, 800_000, 3_500_000, 3_500_000);
    }

    @Test
    void listsPoliciesByNumberWithRangesAndOriginalCeilings() throws IOException {
        assertThat(SysfsCpufreq.open(host.sys(), new FfmSysfsFiles()).policies()).containsExactly(
                new CpufreqPolicy(0, 800_000, 3_500_000, 3_500_000),
                new CpufreqPolicy(2, 1_000_000, 3_200_000, 3_200_000),
                new CpufreqPolicy(10, 800_000, 3_500_000, 3_000_000));
    }

    @Test
    void writesTheCeilingClampedToTheHardwareRange() throws IOException {
        Cpufreq cpufreq = SysfsCpufreq.open(host.sys(), new FfmSysfsFiles());
        assertThat(cpufreq.setScalingMaxKHz(2, 2_000_000)).isEqualTo(2_000_000);
        assertThat(read(policy2)).isEqualTo("2000000");
        assertThat(cpufreq.setScalingMaxKHz(2, 100_000)).isEqualTo(1_000_000);
        assertThat(read(policy2)).isEqualTo("1000000");
        assertThat(cpufreq.setScalingMaxKHz(2, 9_000_000)).isEqualTo(3_200_000);
        assertThat(read(policy2)).isEqualTo("3200000");
        assertThatThrownBy(() -> cpufreq.setScalingMaxKHz(3, 2_000_000)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void restoreWritesTheOriginalCeilingsBack() throws IOException {
        Cpufreq cpufreq = SysfsCpufreq.open(host.sys(), new FfmSysfsFiles());
        for (CpufreqPolicy policy : cpufreq.policies()) {
            cpufreq.setScalingMaxKHz(policy.id(), 0);
        }
        assertThat(read(policy10)).isEqualTo("800000");
        cpufreq.restore();
        assertThat(read(policy0)).isEqualTo("3500000");
        assertThat(read(policy2)).isEqualTo("3200000");
        assertThat(read(policy10)).isEqualTo("3000000");
    }

    @Test
    void restoreTriesEveryPolicyAndReportsTheOneThatFailed() throws IOException {
        assumeTrue(Files.isReadable(NativeFileTest.READ_ONLY_SYSFS_ATTRIBUTE));
        Cpufreq cpufreq = SysfsCpufreq.open(host.sys(), new FfmSysfsFiles());
        cpufreq.setScalingMaxKHz(0, 0);
        cpufreq.setScalingMaxKHz(10, 0);
        Files.delete(policy2);
        Files.createSymbolicLink(policy2, NativeFileTest.READ_ONLY_SYSFS_ATTRIBUTE);
        assertThatThrownBy(cpufreq::restore).isInstanceOf(NativeIoException.class)
                .hasMessageStartingWith("open " + policy2 + ": E");
        assertThat(read(policy0)).isEqualTo("3500000");
        assertThat(read(policy10)).isEqualTo("3000000");
    }

    @Test
    void absentWithoutCpufreq() throws IOException {
        Cpufreq cpufreq = SysfsCpufreq.open(root.resolve("elsewhere"), new FfmSysfsFiles());
        assertThat(cpufreq.policies()).isEmpty();
        assertThatThrownBy(() -> cpufreq.setScalingMaxKHz(0, 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
