package io.joulie.e2e.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Simulated node hardware on loopback, as a pool-mode agent reaches it through a TelemetryProfile's HTTP
 * backends: every node has two CPU packages of {@link #PACKAGE_MAX_WATTS} at most, and the GPU nodes
 * {@link #GPUS} boards of {@link #GPU_MIN_WATTS}..{@link #GPU_MAX_WATTS}. {@code POST /control/{node}} takes a CPU cap
 * ({@code rapl.set_power_cap_watts}, {@code capWatts}) or a GPU cap ({@code gpu.set_power_cap_watts},
 * {@code capWattsPerGpu}, clamped to the boards' range, refused with 409 on a node without GPUs); {@code GET
 * /telemetry/{node}} answers the node's package power, its boards' limits and power, and its hardware in the form of
 * NodeHardware's status. Remembers the last caps each node was given.
 */
public final class SimulatedHardware implements AutoCloseable {
    public static final double PACKAGE_MAX_WATTS = 250;
    public static final int GPUS = 4;
    public static final double GPU_MIN_WATTS = 200;
    public static final double GPU_MAX_WATTS = 700;

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpServer server;
    private final Set<String> gpuNodes;
    private final Map<String, Double> caps = new ConcurrentHashMap<>();
    private final Map<String, Double> gpuCaps = new ConcurrentHashMap<>();

    /** @param gpuNodes the nodes with GPU boards */
    public SimulatedHardware(Set<String> gpuNodes) throws IOException {
        this.gpuNodes = Set.copyOf(gpuNodes);
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/control/", this::control);
        server.createContext("/telemetry/", this::telemetry);
        server.start();
    }

    public String base() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The CPU cap each node was given last, watts for the whole node. */
    public Map<String, Double> caps() {
        return Map.copyOf(caps);
    }

    /** The power limit each GPU node's boards were given last, watts per board, after clamping. */
    public Map<String, Double> gpuCaps() {
        return Map.copyOf(gpuCaps);
    }

    private void control(HttpExchange x) throws IOException {
        String node = x.getRequestURI().getPath().substring("/control/".length());
        JsonNode body = JSON.readTree(x.getRequestBody().readAllBytes());
        String action = body.path("action").asText();
        if (!"POST".equals(x.getRequestMethod()) || !node.equals(body.path("node").asText())) {
            answer(x, 400, "{\"error\":\"expected a POST naming the node\"}");
        } else if ("rapl.set_power_cap_watts".equals(action) && body.path("capWatts").isNumber()) {
            caps.put(node, body.path("capWatts").asDouble());
            answer(x, 200, "{}");
        } else if ("gpu.set_power_cap_watts".equals(action) && body.path("capWattsPerGpu").isNumber()) {
            if (!gpuNodes.contains(node)) {
                answer(x, 409, "{\"result\":\"blocked\",\"message\":\"node has no GPU\"}");
                return;
            }
            gpuCaps.put(node, Math.clamp(body.path("capWattsPerGpu").asDouble(), GPU_MIN_WATTS, GPU_MAX_WATTS));
            answer(x, 200, "{}");
        } else {
            answer(x, 400, "{\"error\":\"expected rapl.set_power_cap_watts with capWatts or gpu.set_power_cap_watts with capWattsPerGpu\"}");
        }
    }

    private void telemetry(HttpExchange x) throws IOException {
        String node = x.getRequestURI().getPath().substring("/telemetry/".length());
        double cap = caps.getOrDefault(node, 2 * PACKAGE_MAX_WATTS);
        ObjectNode root = JSON.createObjectNode();
        root.put("packagePowerWatts", Math.min(cap, 300.0) * 0.8);
        ObjectNode hardware = root.putObject("hardware");
        ObjectNode cpu = hardware.putObject("cpu");
        cpu.put("vendor", "intel").put("model", "Simulated Xeon").put("sockets", 2);
        ArrayNode packages = cpu.putArray("packages");
        for (int p = 0; p < 2; p++) {
            packages.addObject().put("zone", "package-" + p).put("maxWatts", PACKAGE_MAX_WATTS);
        }
        if (gpuNodes.contains(node)) {
            double limit = gpuCaps.getOrDefault(node, GPU_MAX_WATTS);
            ObjectNode gpu = hardware.putObject("gpu");
            gpu.put("vendor", "nvidia").put("model", "Simulated H100").put("count", GPUS);
            ArrayNode boards = gpu.putArray("devices");
            ArrayNode readings = root.putObject("gpu").putArray("devices");
            for (int i = 0; i < GPUS; i++) {
                boards.addObject().put("index", i).put("name", "Simulated H100").put("minWatts", GPU_MIN_WATTS)
                        .put("maxWatts", GPU_MAX_WATTS).put("defaultWatts", GPU_MAX_WATTS).put("limitWatts", limit);
                readings.addObject().put("index", i).put("name", "Simulated H100").put("capWatts", limit)
                        .put("powerWatts", limit * 0.9);
            }
        }
        answer(x, 200, JSON.writeValueAsString(root));
    }

    private static void answer(HttpExchange x, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().add("Content-Type", "application/json");
        x.sendResponseHeaders(status, bytes.length);
        try (var out = x.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
