package io.joulie.agent.power;

import io.joulie.agent.host.GpuBoard;
import io.joulie.agent.host.GpuReading;
import io.joulie.agent.host.Gpus;
import io.joulie.agent.metrics.AgentMetrics;
import io.joulie.agent.metrics.ErrorKind;
import io.joulie.agent.routing.NodeEndpoint;
import io.joulie.agent.routing.Route;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.Source;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.SourceType;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * A node's GPU boards read from the source its route names: NVML on the host (limit, power, energy of every board
 * found at start), an HTTP endpoint ({@code gpu.devices}, and the node's hardware), or none. Remote sources are read
 * on the periodic reconcile only, as for package power ({@link PowerReader}); a reconcile an event asked for reuses
 * the last reading. Each reading goes to the metrics. Not thread-safe: the agent's worker calls it.
 */
public final class GpuReader {
    private static final Logger LOG = Logger.getLogger(GpuReader.class);

    /** What was last read of a node. */
    private static final class Last {
        List<GpuSample> samples = List.of();
        boolean read;
        Optional<NodeHardwareStatus> hardware = Optional.empty();
    }

    private final Gpus host;
    private final PowerReader.Fetch fetch;
    private final AgentMetrics metrics;
    private final Map<String, Last> last = new HashMap<>();

    /** @param host the host's boards; null where the agent has no host access (pool mode) */
    public GpuReader(Gpus host, PowerReader.Fetch fetch, AgentMetrics metrics) {
        this.host = host;
        this.fetch = fetch;
        this.metrics = metrics;
    }

    /** The node's boards now, or the last reading where a remote source is not read again. */
    public List<GpuSample> read(String node, Route route, boolean periodic) {
        Last l = last.computeIfAbsent(node, n -> new Last());
        Route.GpuRoute gpu = route.gpu();
        if (!periodic && gpu.source() != SourceType.HOST && l.read) {
            return l.samples;
        }
        List<GpuSample> samples;
        try {
            samples = sample(node, gpu, l);
        } catch (IOException | RuntimeException e) {
            LOG.debugf("Node %s: no GPU reading (%s)", node, e.toString());
            metrics.error(node, ErrorKind.TELEMETRY);
            samples = List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            samples = List.of();
        }
        l.samples = samples;
        l.read = true;
        samples.forEach(g -> metrics.gpu(node, g.index(), g.capWatts(), g.powerWatts(), g.energyJoules()));
        return samples;
    }

    private List<GpuSample> sample(String node, Route.GpuRoute gpu, Last l) throws IOException, InterruptedException {
        return switch (gpu.source()) {
            case HOST -> host == null || host.unavailable().isPresent() ? List.of() : hostSamples();
            case HTTP -> {
                Source source = gpu.sourceSpec();
                if (source == null || source.http() == null) {
                    yield List.of();
                }
                String body = fetch.get(NodeEndpoint.forNode(source.http().endpoint(), node),
                        Objects.requireNonNullElse(source.http().timeoutSeconds(), NodeEndpoint.DEFAULT_TIMEOUT_SECONDS));
                l.hardware = PowerTelemetry.parseHardware(body);
                yield PowerTelemetry.parseGpus(body);
            }
            case PROMETHEUS, NONE -> List.of();
        };
    }

    /** Every board NVML described at start; a board that cannot be read now is reported without values. */
    private List<GpuSample> hostSamples() {
        List<GpuSample> samples = new ArrayList<>();
        for (GpuBoard board : host.boards()) {
            try {
                GpuReading r = host.read(board.index());
                samples.add(new GpuSample(board.index(), board.name(), OptionalDouble.of(r.limitMw() / 1e3),
                        OptionalDouble.of(r.powerMw() / 1e3), OptionalDouble.of(r.energyMj() / 1e3)));
            } catch (IOException e) {
                LOG.debugf("GPU %d: %s", board.index(), e.getMessage());
                samples.add(new GpuSample(board.index(), board.name(), OptionalDouble.empty(), OptionalDouble.empty(),
                        OptionalDouble.empty()));
            }
        }
        return samples;
    }

    /** The hardware the node's HTTP GPU telemetry last described, if it did. */
    public Optional<NodeHardwareStatus> hardware(String node) {
        Last l = last.get(node);
        return l == null ? Optional.empty() : l.hardware;
    }

    /** Forgets a node this agent no longer serves. */
    public void forget(String node) {
        last.remove(node);
    }
}
