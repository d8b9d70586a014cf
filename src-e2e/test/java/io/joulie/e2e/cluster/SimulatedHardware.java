package io.joulie.e2e.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Simulated node hardware on loopback, as a pool-mode agent reaches it through a TelemetryProfile's HTTP
 * backend: {@code POST /control/{node}} takes a cap ({@code rapl.set_power_cap_watts}), {@code GET
 * /telemetry/{node}} answers the node's package power. Remembers the last cap each node was given.
 */
public final class SimulatedHardware implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpServer server;
    private final Map<String, Double> caps = new ConcurrentHashMap<>();

    public SimulatedHardware() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/control/", this::control);
        server.createContext("/telemetry/", this::telemetry);
        server.start();
    }

    public String base() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public Map<String, Double> caps() {
        return Map.copyOf(caps);
    }

    private void control(HttpExchange x) throws IOException {
        String node = x.getRequestURI().getPath().substring("/control/".length());
        JsonNode body = JSON.readTree(x.getRequestBody().readAllBytes());
        if (!"POST".equals(x.getRequestMethod()) || !node.equals(body.path("node").asText())
                || !"rapl.set_power_cap_watts".equals(body.path("action").asText()) || !body.path("capWatts").isNumber()) {
            answer(x, 400, "{\"error\":\"expected a POST with node, action rapl.set_power_cap_watts and capWatts\"}");
            return;
        }
        caps.put(node, body.path("capWatts").asDouble());
        answer(x, 200, "{}");
    }

    private void telemetry(HttpExchange x) throws IOException {
        String node = x.getRequestURI().getPath().substring("/telemetry/".length());
        double cap = caps.getOrDefault(node, 300.0);
        answer(x, 200, "{\"packagePowerWatts\":" + Math.min(cap, 300.0) * 0.8 + "}");
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
