package io.joulie.agent.host.ffm;

import io.joulie.agent.host.CpuInfo;
import io.joulie.agent.host.Host;
import io.joulie.agent.host.HostRoots;
import io.joulie.agent.host.Msr;
import io.joulie.agent.host.Originals;
import io.joulie.agent.host.SysfsCpufreq;
import io.joulie.agent.host.SysfsFiles;
import io.joulie.agent.host.SysfsPowercap;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Assembles the host on the real files: powercap and cpufreq through the FFM file port ({@link FfmSysfsFiles}),
 * the MSR devices through {@link FfmMsr}; each is replaced by its absent fallback where the host lacks it.
 */
public final class FfmHost {
    private FfmHost() {
    }

    /** {@link #open(HostRoots, double, Optional)} without a floor, with the limits in force now as originals. */
    public static Host open(HostRoots roots) throws IOException {
        return open(roots, 0, Optional.empty());
    }

    /**
     * @param packageFloorWatts no package share of a node cap below this is written (0: no floor)
     * @param inherited         originals an earlier agent process of this boot recorded ({@link io.joulie.agent.host.HostOriginals});
     *                          what they do not name has what is in force now as its original
     */
    public static Host open(HostRoots roots, double packageFloorWatts, Optional<Originals> inherited) throws IOException {
        CpuInfo cpu = CpuInfo.read(roots.proc());
        Msr msr = FfmMsr.open(roots, cpu.vendor());
        SysfsFiles files = new FfmSysfsFiles();
        try {
            return new Host(roots, cpu, msr,
                    SysfsPowercap.open(roots.sys(), files, msr, packageFloorWatts, inherited.map(Originals::powercap).orElse(List.of())),
                    SysfsCpufreq.open(roots.sys(), files, inherited.map(Originals::cpufreqMaxKHz).orElse(Map.of())));
        } catch (IOException | RuntimeException e) {
            msr.close();
            throw e;
        }
    }
}
