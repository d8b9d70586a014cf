package io.joulie.agent.runtime;

import io.joulie.agent.config.AgentSettings;
import io.joulie.agent.host.FileOriginalsStore;
import io.joulie.agent.host.Host;
import io.joulie.agent.host.HostOriginals;
import io.joulie.agent.host.Originals;
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

/** The agent's composition root for what the classes of the agent are given rather than make: the host, the clock, the HTTP client. */
@ApplicationScoped
public class AgentProducers {

    private static final Logger LOG = Logger.getLogger(AgentProducers.class);

    /** What {@link #host} decided about the originals kept in JOULIE_STATE_DIR, for {@link #originals}. */
    private Optional<String> bootId = Optional.empty();
    private Optional<Originals> inherited = Optional.empty();

    /**
     * The host under JOULIE_SYSFS_ROOT, JOULIE_PROC_ROOT and JOULIE_DEV_ROOT, on the FFM implementation, with the
     * originals an earlier agent process of this boot kept in JOULIE_STATE_DIR (docs/agent-host.md); node mode only.
     */
    @Produces
    @Singleton
    Host host(AgentSettings settings) {
        bootId = HostOriginals.bootId(settings.roots());
        inherited = HostOriginals.inherited(store(settings), bootId, LOG::info);
        try {
            return FfmHost.open(settings.roots(), settings.packageFloorWatts(), inherited);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the host under " + settings.roots()
                    + " (JOULIE_SYSFS_ROOT, JOULIE_PROC_ROOT, JOULIE_DEV_ROOT)", e);
        }
    }

    /** The host's originals, kept in JOULIE_STATE_DIR before the first write; node mode only. */
    @Produces
    @Singleton
    HostOriginals originals(Host host, AgentSettings settings) {
        return new HostOriginals(store(settings), Originals.of(bootId, host.powercap(), host.cpufreq()), inherited.isPresent());
    }

    private static OriginalsStore store(AgentSettings settings) {
        return new FileOriginalsStore(settings.stateDir());
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
