package io.joulie.agent.host.ffm;

import io.joulie.agent.host.CpuInfo;
import io.joulie.agent.host.Host;
import io.joulie.agent.host.HostRoots;
import io.joulie.agent.host.Msr;

import java.io.IOException;

/** Assembles the FFM implementations, each replaced by its absent fallback where the host lacks it. */
public final class FfmHost {
    private FfmHost() {
    }

    public static Host open(HostRoots roots) throws IOException {
        CpuInfo cpu = CpuInfo.read(roots.proc());
        Msr msr = FfmMsr.open(roots, cpu.vendor());
        try {
            return new Host(roots, cpu, msr, FfmPowercap.open(roots.sys(), msr), FfmCpufreq.open(roots.sys()));
        } catch (IOException | RuntimeException e) {
            msr.close();
            throw e;
        }
    }
}
