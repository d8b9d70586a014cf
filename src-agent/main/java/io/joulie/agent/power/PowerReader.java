package io.joulie.agent.power;

import io.joulie.agent.metrics.AgentMetrics;
import io.joulie.agent.metrics.ErrorKind;
import io.joulie.agent.routing.NodeEndpoint;
import io.joulie.agent.routing.Route;
import io.joulie.api.telemetry.PhysicalBounds;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.Source;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.SourceType;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * A node's package power from the source its route names (the host's RAPL energy counters, an HTTP endpoint, a
 * Prometheus query, or none), with the energy counted as power x time since the previous reading. Remote sources
 * are read on the periodic reconcile only, so that a slow or unreachable source never delays applying a changed
 * NodePowerProfile; a reconcile an event asked for reuses the last reading. A reading above
 * {@link #MAX_NODE_PACKAGE_WATTS} cannot be a node's CPU package power (an endpoint's bad value, an energy counter reset
 * taken for a wrap): it is refused, counted as a telemetry error, and {@link #refusal} says why, for the node's status.
 * Not thread-safe: the agent's worker calls it.
 */
public final class PowerReader {
    private static final Logger LOG = Logger.getLogger(PowerReader.class);
    /** The physical bound of a node's CPU package power ({@link PhysicalBounds}, docs/agent.md, "Telemetry"). */
    public static final double MAX_NODE_PACKAGE_WATTS = PhysicalBounds.MAX_NODE_PACKAGE_WATTS;

    /** GETs a telemetry URL; a non-2xx answer is an IOException ({@link PowerTelemetry#get}). */
    @FunctionalInterface
    public interface Fetch {
        String get(String url, int timeoutSeconds) throws IOException, InterruptedException;
    }

    /**
     * The last reading of a node (empty: none) and when it was taken (null: no reading to count energy from), and the
     * hardware its HTTP telemetry last described.
     */
    private static final class Last {
        OptionalDouble watts = OptionalDouble.empty();
        Instant at;
        Optional<NodeHardwareStatus> hardware = Optional.empty();
        /** Why the last reading was refused, if it was. */
        Optional<String> refusal = Optional.empty();
    }

    private final PackagePowerMeter meter;
    private final Fetch fetch;
    private final AgentMetrics metrics;
    private final InstantSource clock;
    private final Map<String, Last> last = new HashMap<>();

    /** @param meter the host's RAPL meter; null where the agent has no host access (pool mode) */
    public PowerReader(PackagePowerMeter meter, Fetch fetch, AgentMetrics metrics, InstantSource clock) {
        this.meter = meter;
        this.fetch = fetch;
        this.metrics = metrics;
        this.clock = clock;
    }

    /** The node's package power now, or the last reading where a remote source is not read again (see above). */
    public OptionalDouble read(String node, Route route, boolean periodic) {
        Last l = last.computeIfAbsent(node, n -> new Last());
        if (!periodic && route.cpuSource() != SourceType.HOST && l.watts.isPresent()) {
            return l.watts;
        }
        Instant now = clock.instant();
        OptionalDouble watts = OptionalDouble.empty();
        Optional<String> refusal = Optional.empty();
        try {
            watts = sample(node, route, l);
            if (watts.isPresent() && watts.getAsDouble() > MAX_NODE_PACKAGE_WATTS) {
                refusal = Optional.of("package power reading " + watts.getAsDouble() + " W from the " + route.cpuSource().name()
                        .toLowerCase(java.util.Locale.ROOT) + " source refused: above the physical bound of "
                        + (long) MAX_NODE_PACKAGE_WATTS + " W");
                LOG.warnf("Node %s: %s", node, refusal.get());
                metrics.error(node, ErrorKind.TELEMETRY);
                watts = OptionalDouble.empty();
            }
        } catch (IOException | RuntimeException e) {
            LOG.debugf("Node %s: no package power reading (%s)", node, e.toString());
            metrics.error(node, ErrorKind.TELEMETRY);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (watts.isPresent()) {
            double joules = l.at == null ? 0 : watts.getAsDouble() * Duration.between(l.at, now).toNanos() / 1e9;
            metrics.packagePower(node, watts.getAsDouble(), joules);
            l.at = now;
        } else {
            metrics.packagePower(node, Double.NaN, 0); // no reading: the gauge says so instead of repeating an old one
            l.at = null;
        }
        l.watts = watts;
        l.refusal = refusal;
        return watts;
    }

    /** Why the node's last reading was refused (a value outside physical bounds), if it was. */
    public Optional<String> refusal(String node) {
        Last l = last.get(node);
        return l == null ? Optional.empty() : l.refusal;
    }

    private OptionalDouble sample(String node, Route route, Last l) throws IOException, InterruptedException {
        Source source = route.cpuSourceSpec();
        return switch (route.cpuSource()) {
            case HOST -> meter == null ? OptionalDouble.empty() : meter.sampleWatts();
            case HTTP -> {
                if (source == null || source.http() == null) {
                    yield OptionalDouble.empty();
                }
                String body = fetch.get(NodeEndpoint.forNode(source.http().endpoint(), node),
                        Objects.requireNonNullElse(source.http().timeoutSeconds(), NodeEndpoint.DEFAULT_TIMEOUT_SECONDS));
                l.hardware = PowerTelemetry.parseHardware(body);
                yield PowerTelemetry.parseHttp(body);
            }
            case PROMETHEUS -> source == null || source.prometheus() == null ? OptionalDouble.empty()
                    : PowerTelemetry.parsePrometheus(fetch.get(PowerTelemetry.prometheusUrl(source.prometheus().endpoint(),
                    source.prometheus().query(), node), NodeEndpoint.DEFAULT_TIMEOUT_SECONDS));
            case NONE -> OptionalDouble.empty();
        };
    }

    /** The hardware the node's HTTP CPU telemetry last described, if it did. */
    public Optional<NodeHardwareStatus> hardware(String node) {
        Last l = last.get(node);
        return l == null ? Optional.empty() : l.hardware;
    }

    /** Forgets a node this agent no longer serves. */
    public void forget(String node) {
        last.remove(node);
    }
}
