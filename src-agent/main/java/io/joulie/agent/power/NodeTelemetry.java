package io.joulie.agent.power;

import io.joulie.agent.host.GpuBoard;
import io.joulie.agent.host.GpuReading;
import io.joulie.agent.host.Gpus;
import io.joulie.agent.metrics.AgentMetrics;
import io.joulie.agent.metrics.ErrorKind;
import io.joulie.agent.routing.NodeEndpoint;
import io.joulie.agent.routing.Route;
import io.joulie.api.telemetry.PhysicalBounds;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.HttpEndpoint;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.Source;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.SourceType;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * A node's telemetry from the sources its route names: package power (the host's RAPL energy counters, an HTTP
 * endpoint, a Prometheus query, or none), with the energy counted as power x time since the previous reading; the GPU
 * boards (NVML on the host, an HTTP endpoint's {@code gpu.devices}, or none); and the hardware an HTTP endpoint
 * describes. One pass ({@link #read}) GETs each HTTP endpoint once and parses its answer once, however many families
 * it serves. Remote sources are read on the periodic reconcile only, so that a slow or unreachable source never
 * delays applying a changed NodePowerProfile; a reconcile an event asked for reuses the last reading. A package power
 * reading above {@link #MAX_NODE_PACKAGE_WATTS} cannot be a node's CPU package power (an endpoint's bad value, an
 * energy counter reset taken for a wrap): it is refused, counted as a telemetry error, and the reading says why, for
 * the node's status. Every reading goes to the metrics. Not thread-safe: the agent's worker calls it.
 */
public final class NodeTelemetry {
    private static final Logger LOG = Logger.getLogger(NodeTelemetry.class);
    /** The physical bound of a node's CPU package power ({@link PhysicalBounds}, docs/agent.md, "Telemetry"). */
    public static final double MAX_NODE_PACKAGE_WATTS = PhysicalBounds.MAX_NODE_PACKAGE_WATTS;

    /** GETs a telemetry URL; a non-2xx answer is an IOException ({@link PowerTelemetry#get}). */
    @FunctionalInterface
    public interface Fetch {
        String get(String url, int timeoutSeconds) throws IOException, InterruptedException;
    }

    /**
     * A node's telemetry after one pass.
     *
     * @param packageWatts the package power; empty: no reading
     * @param refusal      why the package power reading was refused (a value outside physical bounds), if it was
     * @param boards       the boards a remote GPU source reported; empty where the boards are the host's ({@link #hostBoards})
     * @param hardware     the hardware the node's HTTP telemetry describes: the CPU part from the CPU source, the GPU part
     *                     from the GPU source (else the CPU source's)
     */
    public record Reading(OptionalDouble packageWatts, Optional<String> refusal, List<GpuSample> boards,
                          Optional<NodeHardwareStatus> hardware) {
    }

    /** What was last read of a node. */
    private static final class Last {
        OptionalDouble watts = OptionalDouble.empty();
        /** When {@link #watts} was taken; null: no reading to count energy from. */
        Instant at;
        Optional<String> refusal = Optional.empty();
        Optional<NodeHardwareStatus> cpuHardware = Optional.empty();
        List<GpuSample> boards = List.of();
        boolean boardsRead;
        Optional<NodeHardwareStatus> gpuHardware = Optional.empty();
    }

    /** An HTTP endpoint's answer in this pass: parsed, or why there is none (an IOException or a RuntimeException). */
    private record Answered(PowerTelemetry.Answer answer, Exception failure) {
    }

    private final PackagePowerMeter meter;
    private final Gpus host;
    private final Fetch fetch;
    private final AgentMetrics metrics;
    private final InstantSource clock;
    private final Map<String, Last> last = new HashMap<>();

    /**
     * @param meter the host's RAPL meter; null where the agent has no host access (pool mode)
     * @param host  the host's boards; null where the agent has no host access
     */
    public NodeTelemetry(PackagePowerMeter meter, Gpus host, Fetch fetch, AgentMetrics metrics, InstantSource clock) {
        this.meter = meter;
        this.host = host;
        this.fetch = fetch;
        this.metrics = metrics;
        this.clock = clock;
    }

    /**
     * The node's package power and, unless its boards are the host's, its GPU boards: read now, or the last reading
     * where a remote source is not read again (see above). An HTTP endpoint that serves both families is asked once.
     */
    public Reading read(String node, Route route, boolean periodic) {
        Last l = last.computeIfAbsent(node, n -> new Last());
        Map<String, Answered> pass = new HashMap<>();
        OptionalDouble watts = packagePower(node, route, periodic, l, pass);
        List<GpuSample> boards = route.gpu().source() == SourceType.HOST ? List.of() : remoteBoards(node, route.gpu(), periodic, l, pass);
        Optional<NodeHardwareStatus> hardware = l.cpuHardware.isEmpty() && l.gpuHardware.isEmpty() ? Optional.empty()
                : Optional.of(new NodeHardwareStatus(l.cpuHardware.map(NodeHardwareStatus::cpu).orElse(null),
                l.gpuHardware.or(() -> l.cpuHardware).map(NodeHardwareStatus::gpu).orElse(null), null));
        return new Reading(watts, l.refusal, boards, hardware);
    }

    private OptionalDouble packagePower(String node, Route route, boolean periodic, Last l, Map<String, Answered> pass) {
        if (!periodic && route.cpuSource() != SourceType.HOST && l.watts.isPresent()) {
            return l.watts;
        }
        Instant now = clock.instant();
        OptionalDouble watts = OptionalDouble.empty();
        Optional<String> refusal = Optional.empty();
        try {
            watts = samplePower(node, route, l, pass);
            if (watts.isPresent() && watts.getAsDouble() > MAX_NODE_PACKAGE_WATTS) {
                refusal = Optional.of("package power reading " + watts.getAsDouble() + " W from the " + route.cpuSource().name()
                        .toLowerCase(Locale.ROOT) + " source refused: above the physical bound of " + (long) MAX_NODE_PACKAGE_WATTS
                        + " W");
                LOG.warnf("Node %s: %s", node, refusal.get());
                metrics.error(node, ErrorKind.TELEMETRY);
                watts = OptionalDouble.empty();
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            noReading(node, "package power", e);
        }
        if (watts.isPresent()) {
            double joules = l.at == null ? 0 : watts.getAsDouble() * Duration.between(l.at, now).toNanos() / 1e9;
            metrics.packagePower(node, watts.getAsDouble(), joules);
            l.at = now;
        } else {
            metrics.packagePower(node, Double.NaN, 0); // no reading: the series goes instead of repeating an old value
            l.at = null;
        }
        l.watts = watts;
        l.refusal = refusal;
        return watts;
    }

    private OptionalDouble samplePower(String node, Route route, Last l, Map<String, Answered> pass)
            throws IOException, InterruptedException {
        Source source = route.cpuSourceSpec();
        return switch (route.cpuSource()) {
            case HOST -> meter == null ? OptionalDouble.empty() : meter.sampleWatts();
            case HTTP -> {
                if (source == null || source.http() == null) {
                    yield OptionalDouble.empty();
                }
                PowerTelemetry.Answer answer = answer(source.http(), node, pass);
                l.cpuHardware = answer.hardware();
                yield answer.packagePowerWatts();
            }
            case PROMETHEUS -> source == null || source.prometheus() == null ? OptionalDouble.empty()
                    : PowerTelemetry.parsePrometheus(fetch.get(PowerTelemetry.prometheusUrl(source.prometheus().endpoint(),
                    source.prometheus().query(), node), NodeEndpoint.DEFAULT_TIMEOUT_SECONDS));
            case NONE -> OptionalDouble.empty();
        };
    }

    private List<GpuSample> remoteBoards(String node, Route.GpuRoute gpu, boolean periodic, Last l, Map<String, Answered> pass) {
        if (!periodic && l.boardsRead) {
            return l.boards;
        }
        List<GpuSample> boards = List.of();
        Source source = gpu.sourceSpec();
        if (gpu.source() == SourceType.HTTP && source != null && source.http() != null) {
            try {
                PowerTelemetry.Answer answer = answer(source.http(), node, pass);
                l.gpuHardware = answer.hardware();
                boards = answer.gpus();
            } catch (IOException | InterruptedException | RuntimeException e) {
                noReading(node, "GPU", e);
            }
        }
        l.boards = boards;
        l.boardsRead = true;
        return recorded(node, boards);
    }

    /** A family's source gave no reading: a telemetry error, unless the worker is being stopped. */
    private void noReading(String node, String family, Exception e) {
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            return;
        }
        LOG.debugf("Node %s: no %s reading (%s)", node, family, e.toString());
        metrics.error(node, ErrorKind.TELEMETRY);
    }

    /** The endpoint's answer for the node: GET and parsed on its first use in this pass, reused after. */
    private PowerTelemetry.Answer answer(HttpEndpoint endpoint, String node, Map<String, Answered> pass)
            throws IOException, InterruptedException {
        String url = NodeEndpoint.forNode(endpoint.endpoint(), node);
        Answered answered = pass.get(url);
        if (answered == null) {
            try {
                answered = new Answered(PowerTelemetry.parse(fetch.get(url,
                        Objects.requireNonNullElse(endpoint.timeoutSeconds(), NodeEndpoint.DEFAULT_TIMEOUT_SECONDS))), null);
            } catch (IOException | RuntimeException e) {
                answered = new Answered(null, e);
            }
            pass.put(url, answered);
        }
        if (answered.failure() instanceof IOException e) {
            throw e;
        }
        if (answered.failure() instanceof RuntimeException e) {
            throw e;
        }
        return answered.answer();
    }

    /**
     * Every board NVML described at start, read now; a board that cannot be read now is reported without values. Empty
     * where the agent has no host boards.
     */
    public List<GpuSample> hostBoards(String node) {
        if (host == null || host.unavailable().isPresent()) {
            return recorded(node, List.of());
        }
        List<GpuSample> samples = new ArrayList<>();
        for (GpuBoard board : host.boards()) {
            try {
                GpuReading r = host.read(board.index());
                samples.add(new GpuSample(board.index(), board.name(), OptionalDouble.of(r.limitMw() / 1e3),
                        OptionalDouble.of(r.powerMw() / 1e3),
                        r.energyMj().isPresent() ? OptionalDouble.of(r.energyMj().getAsLong() / 1e3) : OptionalDouble.empty()));
            } catch (IOException e) {
                LOG.debugf("GPU %d: %s", board.index(), e.getMessage());
                samples.add(new GpuSample(board.index(), board.name(), OptionalDouble.empty(), OptionalDouble.empty(),
                        OptionalDouble.empty()));
            }
        }
        return recorded(node, samples);
    }

    private List<GpuSample> recorded(String node, List<GpuSample> boards) {
        boards.forEach(g -> metrics.gpu(node, g.index(), g.capWatts(), g.powerWatts(), g.energyJoules()));
        return boards;
    }

    /** Forgets a node this agent no longer serves. */
    public void forget(String node) {
        last.remove(node);
    }
}
