package io.joulie.operator.telemetry;

import io.joulie.api.telemetry.PhysicalBounds;
import io.joulie.operator.telemetry.PrometheusClient.Point;
import io.joulie.operator.telemetry.PrometheusClient.QueryException;
import io.joulie.planner.Telemetry;

import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.function.DoublePredicate;

/**
 * Reads one tick's {@link Telemetry} from Prometheus. Every signal is queried twice: the query itself and
 * {@code timestamp(<query>)}, whose difference to the evaluation time is the sample's age (for computed
 * expressions Prometheus reports the evaluation time, so their age is 0). Samples older than the
 * staleness bound, NaN and infinite values count as missing; so do values outside the signal's physical bounds
 * ({@link PhysicalBounds}: a node's package power above 10 kW, a temperature outside -40…150 °C, a PUE outside 1…10, a
 * carbon intensity outside 0…2,000 g/kWh), which are counted as refused. A per-node signal that is configured but has
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

    /** The signals read, with what each may be ({@link PhysicalBounds}); the names label the refused-sample counter. */
    enum Signal {
        POWER(PhysicalBounds::nodePackageWatts),
        TEMPERATURE(PhysicalBounds::cpuCelsius),
        PUE(PhysicalBounds::pue),
        CARBON_INTENSITY(PhysicalBounds::carbonIntensity);

        private final DoublePredicate physical;

        Signal(DoublePredicate physical) {
            this.physical = physical;
        }

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * Why the last read was unavailable: {@code unreachable}, {@code query_error} or {@code stale}; and how many samples
     * of each signal were refused as outside physical bounds.
     */
    public record Reading(Telemetry telemetry, Optional<String> failure, Map<Signal, Integer> refused) {
        public Reading {
            refused = Map.copyOf(refused);
        }
    }

    /** A read whose queries each end within the configured timeout. */
    public Reading read() {
        return read(Duration.ofDays(1));
    }

    /**
     * A read that ends within {@code budget} (its queries one after the other, each within the configured timeout and
     * within what is left of the budget): a slow Prometheus costs a tick at most the budget, however many signals are
     * configured. When the budget runs out the telemetry is unavailable ({@code unreachable}), as for an outage.
     */
    public Reading read(Duration budget) {
        long deadline = System.nanoTime() + Math.min(budget.toNanos(), Duration.ofDays(1).toNanos());
        Map<Signal, Integer> refused = new EnumMap<>(Signal.class);
        Budget left = () -> {
            long rest = deadline - System.nanoTime();
            if (rest <= 0) {
                throw new QueryException("unreachable", "Prometheus at " + config.url() + " did not answer every query within "
                        + "the tick's telemetry budget of " + io.joulie.api.text.Durations.format(budget));
            }
            return Duration.ofNanos(rest);
        };
        try {
            Map<String, Telemetry.Sample> power = perNode(Signal.POWER, config.powerQuery(), refused, left);
            Map<String, Telemetry.Sample> temperature = perNode(Signal.TEMPERATURE, config.temperatureQuery(), refused, left);
            Set<String> nodes = new HashSet<>(power.keySet());
            nodes.addAll(temperature.keySet());
            Map<String, Telemetry.NodeSamples> samples = new HashMap<>();
            for (String n : nodes) {
                samples.put(n, new Telemetry.NodeSamples(Optional.ofNullable(power.get(n)),
                        Optional.ofNullable(temperature.get(n))));
            }
            return new Reading(Telemetry.available(samples, scalar(Signal.PUE, config.pueQuery(), refused, left),
                    scalar(Signal.CARBON_INTENSITY, config.carbonIntensityQuery(), refused, left)), Optional.empty(), refused);
        } catch (QueryException e) {
            return new Reading(Telemetry.unavailable(e.getMessage()), Optional.of(e.reason()), refused);
        }
    }

    /** What is left of a read's budget; throws once nothing is. */
    @FunctionalInterface
    private interface Budget {
        Duration left() throws QueryException;
    }

    private Map<String, Telemetry.Sample> perNode(Signal signal, Optional<String> query, Map<Signal, Integer> refused,
                                                  Budget left) throws QueryException {
        if (query.isEmpty()) {
            return Map.of();
        }
        Map<String, Telemetry.Sample> fresh = fresh(signal, query.get(), true, refused, left);
        if (fresh.isEmpty()) {
            throw new QueryException("stale", "no fresh " + signal.label() + " samples within physical bounds with a '"
                    + config.nodeLabel() + "' label (query '" + query.get() + "', stale after "
                    + config.staleAfter().toSeconds() + "s)");
        }
        return fresh;
    }

    private OptionalDouble scalar(Signal signal, Optional<String> query, Map<Signal, Integer> refused, Budget left)
            throws QueryException {
        if (query.isEmpty()) {
            return OptionalDouble.empty();
        }
        Map<String, Telemetry.Sample> fresh = fresh(signal, query.get(), false, refused, left);
        return fresh.isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(fresh.values().iterator().next().value());
    }

    /**
     * Fresh samples within the signal's physical bounds by node label (or under "" for cluster scalars); the largest value
     * wins on duplicates.
     */
    private Map<String, Telemetry.Sample> fresh(Signal signal, String query, boolean perNode, Map<Signal, Integer> refused,
                                                Budget left) throws QueryException {
        PrometheusClient.Result values = client.query(query, left.left());
        Map<String, Double> stamps = new HashMap<>();
        if (values.points().stream().anyMatch(p -> !p.labels().isEmpty())) {
            for (Point p : client.query("timestamp(" + query + ")", left.left()).points()) {
                stamps.merge(key(p, perNode), p.value(), Math::max);
            }
        }
        Map<String, Telemetry.Sample> out = new HashMap<>();
        for (Point p : values.points()) {
            String key = key(p, perNode);
            if (key == null || !Double.isFinite(p.value())) {
                continue;
            }
            if (!signal.physical.test(p.value())) {
                refused.merge(signal, 1, Integer::sum);
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
