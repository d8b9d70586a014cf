package io.joulie.agent.runtime;

import io.joulie.agent.config.AgentSettings;
import io.joulie.agent.host.CpuOriginals;
import io.joulie.agent.host.FileOriginalsStore;
import io.joulie.agent.host.Host;
import io.joulie.agent.host.KeptOriginals;
import io.joulie.agent.host.OriginalsKind;
import io.joulie.agent.host.OriginalsStore;
import io.joulie.agent.host.ffm.FfmHost;
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
import java.util.Optional;
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
            FfmHost.GpuAccess gpus = new FfmHost.GpuAccess(settings.nvmlLibrary(), () -> KeptOriginals.open(OriginalsKind.GPU,
                    new FileOriginalsStore<>(settings.stateDir(), OriginalsKind.GPU), bootId, log));
            return openHost(new FileOriginalsStore<>(settings.stateDir(), OriginalsKind.CPU), bootId,
                    inherited -> FfmHost.open(settings.roots(), settings.packageFloorWatts(), inherited, gpus), log);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the host under " + settings.roots()
                    + " (JOULIE_SYSFS_ROOT, JOULIE_PROC_ROOT, JOULIE_DEV_ROOT)", e);
        }
    }

    /** The decision at start (which originals win) and the host opened with it; the fault-injection tests use it too. */
    static NodeHost openHost(OriginalsStore<CpuOriginals> store, Optional<String> bootId, HostOpener opener, Consumer<String> log)
            throws IOException {
        KeptOriginals<CpuOriginals> originals = KeptOriginals.open(OriginalsKind.CPU, store, bootId, log);
        return new NodeHost(opener.open(originals.kept()), originals);
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
