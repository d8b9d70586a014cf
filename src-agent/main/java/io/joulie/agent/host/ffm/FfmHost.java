package io.joulie.agent.host.ffm;

import io.joulie.agent.host.CpuInfo;
import io.joulie.agent.host.CpuOriginals;
import io.joulie.agent.host.Gpus;
import io.joulie.agent.host.Host;
import io.joulie.agent.host.HostRoots;
import io.joulie.agent.host.KeptOriginals;
import io.joulie.agent.host.Msr;
import io.joulie.agent.host.NvmlGpus;
import io.joulie.agent.host.SysfsCpufreq;
import io.joulie.agent.host.SysfsFiles;
import io.joulie.agent.host.SysfsPowercap;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Assembles the host on the real files and libraries: powercap and cpufreq through the FFM file port
 * ({@link FfmSysfsFiles}), the MSR devices through {@link FfmMsr}, the GPUs through NVML ({@link FfmNvml}); each is
 * replaced by its absent fallback where the host lacks it, and an NVML that cannot be loaded leaves the CPU side as it is.
 */
public final class FfmHost {
    private static final Logger LOG = Logger.getLogger(FfmHost.class);

    /**
     * Where the GPUs are reached: the NVML library to load, and their originals, opened once NVML counted the boards
     * (given the boards' limits in force, {@link KeptOriginals#open}).
     */
    public record GpuAccess(String nvmlLibrary,
                            Function<KeptOriginals.InForce<Map<String, Long>>, KeptOriginals<Map<Integer, Long>>> originals) {
    }

    private FfmHost() {
    }

    /** The CPU side only, without a floor, with the limits in force now as originals; no GPU is looked for. */
    public static Host open(HostRoots roots) throws IOException {
        return open(roots, 0, Optional.empty(), null);
    }

    /**
     * @param packageFloorWatts no package share of a node cap below this is written (0: no floor)
     * @param inherited         originals an earlier agent process of this boot recorded ({@link KeptOriginals});
     *                          what they do not name has what is in force now as its original
     * @param gpu               where to reach the GPUs; null: none are looked for
     */
    public static Host open(HostRoots roots, double packageFloorWatts, Optional<CpuOriginals> inherited, GpuAccess gpu) throws IOException {
        CpuInfo cpu = CpuInfo.read(roots.proc());
        Msr msr = FfmMsr.open(roots, cpu.vendor());
        msr.unavailable().ifPresent(why -> LOG.warnf("MSR: %s", why));
        SysfsFiles files = new FfmSysfsFiles();
        try {
            return new Host(roots, cpu, msr,
                    SysfsPowercap.open(roots.sys(), files, msr, packageFloorWatts, inherited.map(CpuOriginals::powercap).orElse(List.of())),
                    SysfsCpufreq.open(roots.sys(), files, inherited.map(CpuOriginals::cpufreqMaxKHz).orElse(Map.of())), gpus(gpu));
        } catch (IOException | RuntimeException e) {
            msr.close();
            throw e;
        }
    }

    /** NVML's boards, or {@link Gpus#absent} saying why not; never fails the agent. */
    static Gpus gpus(GpuAccess gpu) {
        if (gpu == null) {
            return Gpus.absent("GPU control is not configured");
        }
        try {
            Gpus gpus = NvmlGpus.open(FfmNvml.load(gpu.nvmlLibrary()), gpu.originals());
            gpus.unavailable().ifPresentOrElse(why -> LOG.warnf("GPUs: %s", why),
                    () -> LOG.infof("GPUs: NVML loaded from %s, %d boards: %s", gpu.nvmlLibrary(), gpus.boards().size(), gpus.boards()));
            return gpus;
        } catch (IOException | RuntimeException e) {
            String why = "NVML not available (" + e.getMessage() + "); no GPU is capped on this node";
            LOG.infof("GPUs: %s", why);
            return Gpus.absent(why);
        }
    }
}
