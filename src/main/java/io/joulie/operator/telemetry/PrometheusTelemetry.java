package io.joulie.operator.telemetry;

import io.joulie.planner.Telemetry;
import io.joulie.operator.telemetry.PrometheusClient.Point;
import io.joulie.operator.telemetry.PrometheusClient.QueryException;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * Reads one tick's {@link Telemetry} from Prometheus. Every signal is queried twice: the query itself and
 * {@code timestamp(<query>)}, whose difference to the evaluation time is the sample's age (for computed
 * expressions Prometheus reports the evaluation time, so their age is 0). Samples older than the
 * staleness bound, NaN and infinite values count as missing. A per-node signal that is configured but has
 * no fresh sample at all makes the telemetry unavailable ({@code stale}); missing cluster scalars are only
 * absent.
 */
public final class PrometheusTelemetry {
    private final TelemetryConfig config;
    private final PrometheusClient client;

    public PrometheusTelemetry(TelemetryConfig config) {
        this.config = config;
        this.client = new PrometheusClient(config.url(), config.timeout(), config.credentials());
    }

    public TelemetryConfig config() {
        return config;
    }

    /** Why the last read was unavailable: {@code unreachable}, {@code query_error} or {@code stale}. */
    public record Reading(Telemetry telemetry, Optional<String> failure) {
    }

    public Reading read() {
        try {
            Map<String, Telemetry.Sample> power = perNode("power", config.powerQuery());
            Map<String, Telemetry.Sample> temperature = perNode("temperature", config.temperatureQuery());
            Set<String> nodes = new HashSet<>(power.keySet());
            nodes.addAll(temperature.keySet());
            Map<String, Telemetry.NodeSamples> samples = new HashMap<>();
            for (String n : nodes) {
                samples.put(n, new Telemetry.NodeSamples(Optional.ofNullable(power.get(n)),
                        Optional.ofNullable(temperature.get(n))));
            }
            return new Reading(Telemetry.available(samples, scalar(config.pueQuery()),
                    scalar(config.carbonIntensityQuery())), Optional.empty());
        } catch (QueryException e) {
            return new Reading(Telemetry.unavailable(e.getMessage()), Optional.of(e.reason()));
        }
    }

    private Map<String, Telemetry.Sample> perNode(String signal, Optional<String> query) throws QueryException {
        if (query.isEmpty()) {
            return Map.of();
        }
        Map<String, Telemetry.Sample> fresh = fresh(query.get(), true);
        if (fresh.isEmpty()) {
            throw new QueryException("stale", "no fresh " + signal + " samples with a '" + config.nodeLabel()
                    + "' label (query '" + query.get() + "', stale after " + config.staleAfter().toSeconds() + "s)");
        }
        return fresh;
    }

    private OptionalDouble scalar(Optional<String> query) throws QueryException {
        if (query.isEmpty()) {
            return OptionalDouble.empty();
        }
        Map<String, Telemetry.Sample> fresh = fresh(query.get(), false);
        return fresh.isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(fresh.values().iterator().next().value());
    }

    /** Fresh samples by node label (or under "" for cluster scalars); the largest value wins on duplicates. */
    private Map<String, Telemetry.Sample> fresh(String query, boolean perNode) throws QueryException {
        PrometheusClient.Result values = client.query(query);
        Map<String, Double> stamps = new HashMap<>();
        if (values.points().stream().anyMatch(p -> !p.labels().isEmpty())) {
            for (Point p : client.query("timestamp(" + query + ")").points()) {
                stamps.merge(key(p, perNode), p.value(), Math::max);
            }
        }
        Map<String, Telemetry.Sample> out = new HashMap<>();
        for (Point p : values.points()) {
            String key = key(p, perNode);
            if (key == null || !Double.isFinite(p.value())) {
                continue;
            }
            double ts = stamps.getOrDefault(key, values.evaluatedAt());
            Duration age = Duration.ofMillis(Math.max(0, Math.round((values.evaluatedAt() - ts) * 1000)));
            if (age.compareTo(config.staleAfter()) > 0) {
                continue;
            }
            out.merge(key, new Telemetry.Sample(p.value(), age), (a, b) -> a.value() >= b.value() ? a : b);
        }
        return out;
    }

    private String key(Point p, boolean perNode) {
        return perNode ? p.labels().get(config.nodeLabel()) : "";
    }
}
