package io.joulie.agent.runtime;

import io.joulie.agent.config.AgentSettings;
import io.joulie.agent.host.GpuOriginals;
import io.joulie.agent.host.Host;
import io.joulie.agent.host.ffm.FfmHost;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;

/** The agent's composition root for what the classes of the agent are given rather than make: the host, the clock, the HTTP client. */
@ApplicationScoped
public class AgentProducers {

    /**
     * The host under JOULIE_SYSFS_ROOT, JOULIE_PROC_ROOT and JOULIE_DEV_ROOT and its GPUs through JOULIE_NVML_LIBRARY, on
     * the FFM implementation; node mode only.
     */
    @Produces
    @Singleton
    Host host(AgentSettings settings) {
        try {
            return FfmHost.open(settings.roots(), new FfmHost.GpuAccess(settings.nvmlLibrary(), GpuOriginals.inMemory()));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the host under " + settings.roots()
                    + " (JOULIE_SYSFS_ROOT, JOULIE_PROC_ROOT, JOULIE_DEV_ROOT)", e);
        }
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
