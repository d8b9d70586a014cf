package io.joulie.operator.telemetry;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/**
 * Where the operator reads telemetry and how (docs/policies.md#telemetry).
 *
 * @param url                   Prometheus base URL; queries go to {@code <url>/api/v1/query}
 * @param nodeLabel             label whose value is the Kubernetes node name in every per-node result
 * @param powerQuery            PromQL giving CPU package power in watts, one series per node
 * @param temperatureQuery      PromQL giving CPU temperature in °C, one series per node
 * @param pueQuery              PromQL giving the facility PUE (a one-series vector or a scalar)
 * @param carbonIntensityQuery  PromQL giving grid carbon intensity in gCO2/kWh (a one-series vector or a scalar)
 * @param timeout               per-request timeout (connect and response)
 * @param staleAfter            samples older than this count as missing
 * @param credentials           how to authenticate and whom to trust
 */
public record TelemetryConfig(URI url, String nodeLabel, Optional<String> powerQuery, Optional<String> temperatureQuery,
                              Optional<String> pueQuery, Optional<String> carbonIntensityQuery, Duration timeout,
                              Duration staleAfter, Credentials credentials) {

    public static final String DEFAULT_NODE_LABEL = "node";
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
    /**
     * The longest per-query timeout {@code spec.policy.telemetry.prometheus.timeout} accepts: a read makes up to eight
     * sequential queries inside a tick, so a larger one would let a slow Prometheus hold the tick for minutes.
     */
    public static final Duration MAX_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_STALE_AFTER = Duration.ofMinutes(2);

    public TelemetryConfig {
        nodeLabel = nodeLabel == null || nodeLabel.isBlank() ? DEFAULT_NODE_LABEL : nodeLabel;
        timeout = timeout == null ? DEFAULT_TIMEOUT : timeout;
        staleAfter = staleAfter == null ? DEFAULT_STALE_AFTER : staleAfter;
        credentials = credentials == null ? Credentials.NONE : credentials;
    }
}
