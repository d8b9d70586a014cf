package io.joulie.agent.host;

import io.joulie.testkit.FakeHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.OptionalInt;

import static org.assertj.core.api.Assertions.assertThat;

class CpuInfoTest {
    @TempDir
    Path root;

    @Test
    void socketsCoresAndThreadsComeFromPhysicalAndCoreIds() throws IOException {
        StringBuilder cpuinfo = new StringBuilder();
        int cpu = 0;
        for (int socket = 0; socket < 2; socket++) {
            for (int core = 0; core < 4; core++) {
                for (int thread = 0; thread < 2; thread++) {
                    cpuinfo.append("processor\t: ").append(cpu++).append("\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9654 96-Core Processor\n")
                            .append("physical id\t: ").append(socket).append("\ncore id\t\t: ").append(core).append("\n\n");
                }
            }
        }
        FakeHost.write(root.resolve("cpuinfo"), cpuinfo.toString());
        CpuInfo info = CpuInfo.read(root);
        assertThat(info.vendor()).isEqualTo(CpuVendor.AMD);
        assertThat(info.model()).isEqualTo("AMD EPYC 9654 96-Core Processor");
        assertThat(info.sockets()).isEqualTo(OptionalInt.of(2));
        assertThat(info.cores()).isEqualTo(OptionalInt.of(8));
        assertThat(info.threads()).isEqualTo(16);
    }

    @Test
    void withoutTopologyFieldsSocketsAndCoresAreNotKnown() throws IOException {
        new FakeHost(root).cpuinfo("GenuineIntel", "Intel(R) Xeon(R) Test CPU");
        CpuInfo info = CpuInfo.read(root.resolve("proc"));
        assertThat(info.sockets()).isEmpty();
        assertThat(info.cores()).isEmpty();
        assertThat(info.threads()).isEqualTo(2);
        assertThat(CpuInfo.read(root.resolve("nowhere")).threads()).isZero();
    }
}
