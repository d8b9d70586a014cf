package io.joulie.agent.host;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;

/** The host-access services of one node, as the control code sees them. */
public record Host(HostRoots roots, CpuInfo cpu, Msr msr, Powercap powercap, Cpufreq cpufreq, Gpus gpus) implements AutoCloseable {
    /** Probes the node now (RAPL writability and MSR readability are tried, not assumed). */
    public HostCapabilities capabilities() {
        boolean cgroupV2 = Files.exists(roots.sys().resolve("fs/cgroup/cgroup.controllers"));
        return new HostCapabilities(!powercap.packages().isEmpty(), powercap.writable(), msrReadable(),
                !cpufreq.policies().isEmpty(), cpu.vendor(), cpu.model(), System.getProperty("os.arch"),
                cgroupV2 ? HostCapabilities.CgroupVersion.V2 : HostCapabilities.CgroupVersion.V1);
    }

    private boolean msrReadable() {
        List<Integer> packages = msr.packages();
        try {
            return !packages.isEmpty() && msr.read(packages.getFirst()).isPresent();
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        gpus.close();
        powercap.close();
        msr.close();
    }
}
