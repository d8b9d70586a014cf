package io.joulie.agent.runtime;

import io.joulie.agent.config.AgentSettings;
import io.joulie.agent.host.CpuOriginals;
import io.joulie.agent.host.FileOriginalsStore;
import io.joulie.agent.host.Host;
import io.joulie.agent.host.KeptOriginals;
import io.joulie.agent.host.Msr;
import io.joulie.agent.host.OriginalsKind;
import io.joulie.agent.host.OriginalsStore;
import io.joulie.agent.host.Powercap;
import io.joulie.agent.host.PowercapZone;
import io.joulie.agent.host.SysfsPowercap;
import io.joulie.agent.host.ffm.FfmHost;
import io.joulie.agent.host.ffm.FfmSysfsFiles;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/** The agent's composition root for what the classes of the agent are given rather than make: the host, the clock, the HTTP client. */
@ApplicationScoped
public class AgentProducers {

    private static final Logger LOG = Logger.getLogger(AgentProducers.class);

    /** A node-mode agent's host and what was found on it before the first write. */
    record NodeHost(Host host, KeptOriginals<CpuOriginals> originals) {
    }

    /** Opens a node's host with the originals an earlier agent process of this boot kept ({@link FfmHost#open} in production). */
    @FunctionalInterface
    interface HostOpener {
        Host open(Optional<CpuOriginals> inherited) throws IOException;
    }

    /**
     * Opens the host under JOULIE_SYSFS_ROOT, JOULIE_PROC_ROOT and JOULIE_DEV_ROOT and its GPUs through
     * JOULIE_NVML_LIBRARY on the FFM implementation, with the originals an earlier agent process of this boot kept in
     * JOULIE_STATE_DIR, if any (docs/agent-host.md).
     *
     * @param log what was decided about the kept originals
     */
    static NodeHost openHost(AgentSettings settings, Consumer<String> log) {
        try {
            Optional<String> bootId = KeptOriginals.bootId(settings.roots());
            if (bootId.isEmpty()) {
                log.accept("The kernel's boot id (" + settings.roots().proc().resolve("sys/kernel/random/boot_id") + ") cannot be "
                        + "read: whether originals kept in " + settings.stateDir() + " are still good is told by the limits in force alone");
            }
            FfmHost.GpuAccess gpus = new FfmHost.GpuAccess(settings.nvmlLibrary(), limitsNow -> KeptOriginals.open(OriginalsKind.GPU,
                    new FileOriginalsStore<>(settings.stateDir(), OriginalsKind.GPU), bootId, limitsNow, log));
            return openHost(new FileOriginalsStore<>(settings.stateDir(), OriginalsKind.CPU), bootId,
                    () -> packageLimitsUw(SysfsPowercap.open(settings.roots().sys(), new FfmSysfsFiles(), Msr.absent())),
                    inherited -> FfmHost.open(settings.roots(), settings.packageFloorWatts(), inherited, gpus), log);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the host under " + settings.roots()
                    + " (JOULIE_SYSFS_ROOT, JOULIE_PROC_ROOT, JOULIE_DEV_ROOT)", e);
        }
    }

    /** The decision at start (which originals win) and the host opened with it; the fault-injection tests use it too. */
    static NodeHost openHost(OriginalsStore<CpuOriginals> store, Optional<String> bootId, KeptOriginals.InForce<Map<String, Long>> limitsNow,
                             HostOpener opener, Consumer<String> log) throws IOException {
        KeptOriginals<CpuOriginals> originals = KeptOriginals.open(OriginalsKind.CPU, store, bootId, limitsNow, log);
        return new NodeHost(opener.open(originals.kept()), originals);
    }

    /**
     * The package zones' long_term limits in force, by zone id (the keys of {@link OriginalsKind#CPU}'s limits), read
     * through a powercap opened for this and closed; a zone whose limit cannot be read is left out.
     */
    static Map<String, Long> packageLimitsUw(Powercap powercap) {
        try (powercap) {
            Map<String, Long> limits = new TreeMap<>();
            for (PowercapZone zone : powercap.packages()) {
                try {
                    powercap.read(zone).longTerm().ifPresent(c -> limits.put(zone.id(), c.powerLimitUw()));
                } catch (IOException | RuntimeException e) {
                    // left out: it shows no write of the agent's
                }
            }
            return limits;
        }
    }

    /** Node mode only (the beans below are looked up in node mode alone). */
    @Produces
    @Singleton
    NodeHost nodeHost(AgentSettings settings) {
        return openHost(settings, LOG::info);
    }

    @Produces
    @Singleton
    Host host(NodeHost nodeHost) {
        return nodeHost.host();
    }

    @Produces
    @Singleton
    KeptOriginals<CpuOriginals> originals(NodeHost nodeHost) {
        return nodeHost.originals();
    }

    /** Closes the kept descriptors, after {@link NodeAgent} has put the limits back. */
    void close(@Disposes Host host) {
        host.close();
    }

    @Produces
    @Singleton
    Clock clock() {
        return Clock.systemUTC();
    }

    /** For the HTTP control and telemetry endpoints of TelemetryProfiles. */
    @Produces
    @Singleton
    HttpClient http() {
        return HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }
}
