package io.joulie.agent.host.ffm;

import io.joulie.agent.host.CpuInfo;
import io.joulie.agent.host.Host;
import io.joulie.agent.host.HostRoots;
import io.joulie.agent.host.Msr;
import io.joulie.agent.host.SysfsCpufreq;
import io.joulie.agent.host.SysfsFiles;
import io.joulie.agent.host.SysfsPowercap;

import java.io.IOException;

/**
 * Assembles the host on the real files: powercap and cpufreq through the FFM file port ({@link FfmSysfsFiles}),
 * the MSR devices through {@link FfmMsr}; each is replaced by its absent fallback where the host lacks it.
 */
public final class FfmHost {
    private FfmHost() {
    }

    public static Host open(HostRoots roots) throws IOException {
        CpuInfo cpu = CpuInfo.read(roots.proc());
        Msr msr = FfmMsr.open(roots, cpu.vendor());
        SysfsFiles files = new FfmSysfsFiles();
        try {
            return new Host(roots, cpu, msr, SysfsPowercap.open(roots.sys(), files, msr), SysfsCpufreq.open(roots.sys(), files));
        } catch (IOException | RuntimeException e) {
            msr.close();
            throw e;
        }
    }
}
