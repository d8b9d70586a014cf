package io.joulie.agent.power;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.joulie.agent.routing.NodeEndpoint;
import io.joulie.api.http.BoundedHttp;
import io.joulie.api.v1alpha1.NodeHardwareStatus;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Power from outside the host: {@code GET {endpoint}} answering JSON with {@code packagePowerWatts} at top level or
 * under {@code cpu}, the GPU boards under {@code gpu.devices}, and the node's hardware under {@code hardware} (in the
 * form of NodeHardware's status); or a Prometheus instant query whose first sample is the value.
 */
public final class PowerTelemetry {
    private static final ObjectMapper JSON = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private PowerTelemetry() {
    }

    /**
     * An HTTP telemetry endpoint's answer, parsed once.
     *
     * @param packagePowerWatts {@code packagePowerWatts} at top level, else under {@code cpu}; empty when neither is a
     *                          finite number ≥ 0
     * @param gpus              the boards under {@code gpu.devices}: {@code index} (default: position), {@code name},
     *                          {@code capWatts}, {@code powerWatts}, {@code energyJoules}; a value that is not a finite
     *                          number ≥ 0 is no reading
     * @param hardware          the {@code hardware} object (NodeHardware's status form: {@code cpu.packages[].maxWatts},
     *                          {@code gpu.devices[]} with their min/max watts, ...); empty when absent or malformed
     */
    public record Answer(OptionalDouble packagePowerWatts, List<GpuSample> gpus, Optional<NodeHardwareStatus> hardware) {
        static final Answer NOTHING = new Answer(OptionalDouble.empty(), List.of(), Optional.empty());
    }

    /** The answer's parts; a body that is not JSON has none, and a malformed part is left out alone. */
    public static Answer parse(String body) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (IOException | RuntimeException e) {
            return Answer.NOTHING;
        }
        if (root == null) {
            return Answer.NOTHING;
        }
        return new Answer(packagePower(root), gpus(root), hardware(root));
    }

    private static OptionalDouble packagePower(JsonNode root) {
        for (JsonNode n : new JsonNode[]{root.path("packagePowerWatts"), root.path("cpu").path("packagePowerWatts")}) {
            if (n.isNumber() && plausible(n.asDouble())) {
                return OptionalDouble.of(n.asDouble());
            }
        }
        return OptionalDouble.empty();
    }

    private static Optional<NodeHardwareStatus> hardware(JsonNode root) {
        try {
            JsonNode hardware = root.path("hardware");
            return hardware.isObject() ? Optional.of(JSON.treeToValue(hardware, NodeHardwareStatus.class)) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static List<GpuSample> gpus(JsonNode root) {
        List<GpuSample> samples = new ArrayList<>();
        try {
            JsonNode devices = root.path("gpu").path("devices");
            for (int i = 0; i < devices.size(); i++) {
                JsonNode d = devices.get(i);
                samples.add(new GpuSample(d.path("index").isInt() ? d.path("index").asInt() : i, d.path("name").asText(""),
                        reading(d.path("capWatts")), reading(d.path("powerWatts")), reading(d.path("energyJoules"))));
            }
        } catch (RuntimeException e) {
            return List.of();
        }
        return samples;
    }

    private static OptionalDouble reading(JsonNode n) {
        return n.isNumber() && plausible(n.asDouble()) ? OptionalDouble.of(n.asDouble()) : OptionalDouble.empty();
    }

    /** Power is a finite number of watts ≥ 0: NaN, infinities and negative values are no reading. */
    static boolean plausible(double watts) {
        return Double.isFinite(watts) && watts >= 0;
    }

    /**
     * The value of the first sample of a Prometheus {@code /api/v1/query} answer ({@code data.result[0].value[1]});
     * empty unless it is a finite number ≥ 0 (Prometheus writes NaN as {@code "NaN"}).
     */
    public static OptionalDouble parsePrometheus(String body) {
        try {
            JsonNode value = JSON.readTree(body).path("data").path("result").path(0).path("value").path(1);
            if (value.isTextual() || value.isNumber()) {
                double d = Double.parseDouble(value.asText());
                return plausible(d) ? OptionalDouble.of(d) : OptionalDouble.empty();
            }
        } catch (IOException | RuntimeException e) {
            // malformed: no reading
        }
        return OptionalDouble.empty();
    }

    /**
     * GETs {@code url}, the whole answer within {@code timeoutSeconds} and {@link BoundedHttp#MAX_BODY_BYTES}; a non-2xx
     * answer is an IOException naming the status.
     */
    public static String get(HttpClient http, String url, int timeoutSeconds) throws IOException, InterruptedException {
        Duration deadline = Duration.ofSeconds(timeoutSeconds);
        BoundedHttp.Answer r = BoundedHttp.send(http, HttpRequest.newBuilder(URI.create(url)).timeout(deadline)
                .header("Accept", "application/json").GET().build(), deadline, BoundedHttp.MAX_BODY_BYTES);
        if (!r.ok()) {
            throw new IOException("GET " + url + " answered HTTP " + r.status());
        }
        return r.body();
    }

    /** The Prometheus instant-query URL for {@code query} ({@code {node}} replaced). */
    public static String prometheusUrl(String base, String query, String node) {
        String b = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        return b + "/api/v1/query?query=" + URLEncoder.encode(NodeEndpoint.forNode(query, node), StandardCharsets.UTF_8);
    }
}
