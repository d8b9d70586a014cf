package io.joulie.operator.telemetry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.joulie.api.http.BoundedHttp;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Instant queries against Prometheus's HTTP API ({@code GET /api/v1/query}), JDK HTTP client only. Each query ends
 * within its timeout, body included, and reads at most {@link #MAX_BODY_BYTES} ({@link BoundedHttp}): a Prometheus that
 * drips its answer, or sends a huge one, costs a tick at most its timeout and never the operator's memory.
 */
public final class PrometheusClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * The largest answer read: 16 MiB. One series of an instant vector is about 150 bytes, so this holds the samples of
     * about 100,000 nodes, ten times the largest cluster Joulie is sized for.
     */
    public static final int MAX_BODY_BYTES = 16 * 1024 * 1024;

    private final URI base;
    private final Duration timeout;
    private final Credentials credentials;
    private final HttpClient http;
    /** Why the TLS context could not be made from the CA file, if it could not: every query then says so. */
    private final Optional<String> tlsProblem;

    public PrometheusClient(URI base, Duration timeout, Credentials credentials) {
        String s = base.toString();
        this.base = URI.create(s.endsWith("/") ? s : s + "/");
        this.timeout = timeout;
        this.credentials = credentials;
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(timeout);
        Optional<String> problem = Optional.empty();
        try {
            credentials.sslContext().ifPresent(builder::sslContext);
        } catch (IOException | GeneralSecurityException e) {
            problem = Optional.of("the CA file " + credentials.caFile().orElseThrow() + " cannot be used: " + e.getMessage());
        }
        this.tlsProblem = problem;
        this.http = builder.build();
    }

    /** One series of an instant vector (or the single value of a scalar result, with no labels). */
    public record Point(Map<String, String> labels, double value) {
    }

    /**
     * @param evaluatedAt the evaluation time Prometheus reports, epoch seconds
     * @param points      the result's series
     */
    public record Result(double evaluatedAt, List<Point> points) {
    }

    /** Why a query gave no result. */
    public static final class QueryException extends Exception {
        private final String reason;

        QueryException(String reason, String message) {
            super(message);
            this.reason = reason;
        }

        /** {@code unreachable} or {@code query_error} (the {@code reason} label of the metric). */
        public String reason() {
            return reason;
        }
    }

    public Result query(String promql) throws QueryException {
        return query(promql, timeout);
    }

    /** A query that ends within {@code within} (when that is shorter than the configured timeout), body included. */
    public Result query(String promql, Duration within) throws QueryException {
        Duration timeout = within.compareTo(this.timeout) < 0 ? within : this.timeout;
        URI uri = base.resolve("api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
        if (tlsProblem.isPresent()) {
            throw new QueryException("unreachable", "Prometheus at " + base + ": " + tlsProblem.get());
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(timeout).GET();
        Optional<String> authorization;
        try {
            authorization = credentials.authorization();
            authorization.ifPresent(value -> request.header("Authorization", value));
        } catch (IOException e) {
            throw new QueryException("query_error", "the credentials for Prometheus at " + base + " cannot be read: " + describe(e));
        } catch (IllegalArgumentException e) {
            // the JDK refuses a header value it cannot send; the value itself (a credential) is not repeated
            throw new QueryException("query_error", "the credentials for Prometheus at " + base + " cannot be sent in an HTTP header");
        }
        BoundedHttp.Answer response;
        try {
            response = BoundedHttp.send(http, request.build(), timeout, MAX_BODY_BYTES);
        } catch (IOException e) {
            throw new QueryException("unreachable", "Prometheus at " + base + " is unreachable: " + describe(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new QueryException("unreachable", "interrupted while querying Prometheus");
        }
        if (response.status() == 401 || response.status() == 403) {
            throw new QueryException("query_error", "Prometheus at " + base + " refused the request: HTTP " + response.status()
                    + (authorization.isEmpty() ? " (no credentials configured)" : " (check the credentials)"));
        }
        JsonNode body;
        try {
            body = JSON.readTree(response.body());
        } catch (IOException e) {
            throw new QueryException("query_error", "Prometheus answered HTTP " + response.status() + " with no JSON body");
        }
        if (response.status() != 200 || !"success".equals(body.path("status").asText())) {
            throw new QueryException("query_error", "query '" + promql + "' failed: HTTP " + response.status() + " "
                    + body.path("errorType").asText("") + " " + body.path("error").asText(""));
        }
        return parse(body.path("data"), promql);
    }

    private static Result parse(JsonNode data, String promql) throws QueryException {
        String type = data.path("resultType").asText();
        JsonNode result = data.path("result");
        return switch (type) {
            case "scalar" -> new Result(result.path(0).asDouble(), List.of(new Point(Map.of(), value(result))));
            case "vector" -> {
                List<Point> points = new ArrayList<>(result.size());
                double at = Double.NaN;
                for (JsonNode series : result) {
                    Map<String, String> labels = new HashMap<>();
                    series.path("metric").properties().forEach(e -> labels.put(e.getKey(), e.getValue().asText()));
                    points.add(new Point(labels, value(series.path("value"))));
                    at = series.path("value").path(0).asDouble();
                }
                yield new Result(at, points);
            }
            default -> throw new QueryException("query_error",
                    "query '" + promql + "' returned a " + type + ", not an instant vector or a scalar");
        };
    }

    /** The value of a {@code [timestamp, "value"]} pair; NaN and infinities stay as they are. */
    private static double value(JsonNode pair) {
        try {
            return Double.parseDouble(pair.path(1).asText());
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    private static String describe(IOException e) {
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null || m.isBlank() ? "" : " (" + m + ")");
    }
}
