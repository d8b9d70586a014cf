package io.joulie.sim.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.joulie.sim.GpuModel;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * The agent's HTTP contract (docs/agent.md), served by the twin for every simulated node on 127.0.0.1:
 * {@code POST /control/{node}} with {@code {"node","action","capWatts","throttlePct","ts"}} (or, on a GPU node,
 * {@code {"node","action":"gpu.set_power_cap_watts","capWattsPerGpu","ts"}}) and {@code GET /telemetry/{node}}
 * answering {@code {"packagePowerWatts": …}}, on a GPU node with its boards under {@code gpu.devices} and their limit
 * range under {@code hardware.gpu} (so that the agent resolves a percent cap). Control calls are handed to the
 * simulation thread as updates; telemetry reads the latest power snapshot.
 */
final class AgentEndpoints implements AutoCloseable {
    static final String RAPL_ACTION = "rapl.set_power_cap_watts";
    static final String DVFS_ACTION = "dvfs.set_throttle_pct";
    static final String GPU_ACTION = "gpu.set_power_cap_watts";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, Integer> index = new HashMap<>();
    private final Consumer<Consumer<NodeControls>> updates;
    private final Map<String, Double> caps = new ConcurrentHashMap<>();
    private final Map<String, Double> gpuCaps = new ConcurrentHashMap<>();
    /** The GPU nodes' boards, by node name. */
    private final Map<String, GpuModel> gpus;
    private volatile double[] power;
    private volatile double[] gpuPower;
    private volatile double[] gpuLimit;
    private HttpServer http;
    private ExecutorService pool;

    /**
     * @param nodes   simulated node names, by index
     * @param updates receives what the simulation thread must apply
     */
    AgentEndpoints(List<String> nodes, Consumer<Consumer<NodeControls>> updates) {
        this(nodes, Map.of(), updates);
    }

    /**
     * @param nodes   simulated node names, by index
     * @param gpus    the boards of the GPU nodes, by node name
     * @param updates receives what the simulation thread must apply
     */
    AgentEndpoints(List<String> nodes, Map<String, GpuModel> gpus, Consumer<Consumer<NodeControls>> updates) {
        for (int i = 0; i < nodes.size(); i++) {
            index.put(nodes.get(i), i);
        }
        this.gpus = Map.copyOf(gpus);
        this.updates = updates;
        this.power = new double[nodes.size()];
        this.gpuPower = new double[nodes.size()];
        this.gpuLimit = new double[nodes.size()];
    }

    void start() throws IOException {
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        pool = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "sim-endpoints");
            t.setDaemon(true);
            return t;
        });
        http.setExecutor(pool);
        http.createContext("/control/", this::control);
        http.createContext("/telemetry/", this::telemetry);
        http.start();
    }

    int port() {
        return http.getAddress().getPort();
    }

    /** The latest measured power of every node, of its GPU boards and each board's limit in force, by index. */
    void snapshot(double[] watts, double[] gpuWatts, double[] gpuLimitWatts) {
        power = watts.clone();
        gpuPower = gpuWatts.clone();
        gpuLimit = gpuLimitWatts.clone();
    }

    /** The last cap each node was sent (watts). */
    Map<String, Double> caps() {
        return Map.copyOf(caps);
    }

    /** The last GPU limit each GPU node was sent (watts per board). */
    Map<String, Double> gpuCaps() {
        return Map.copyOf(gpuCaps);
    }

    private void control(HttpExchange ex) throws IOException {
        try (ex) {
            String node = nodeOf(ex, "/control/");
            if (node == null) {
                return;
            }
            if (!"POST".equals(ex.getRequestMethod())) {
                respond(ex, 405, "{\"error\":\"POST only\"}");
                return;
            }
            JsonNode body;
            try {
                body = JSON.readTree(ex.getRequestBody());
            } catch (JsonProcessingException e) {
                respond(ex, 400, "{\"error\":\"body is not JSON\"}");
                return;
            }
            String action = body.path("action").asText("");
            double cap = body.path("capWatts").asDouble(Double.NaN);
            double throttle = body.path("throttlePct").asDouble(Double.NaN);
            switch (action) {
                case RAPL_ACTION -> {
                    if (!(cap > 0) || !Double.isFinite(cap)) {
                        respond(ex, 400, "{\"error\":\"capWatts must be a positive number\"}");
                        return;
                    }
                    caps.put(node, cap);
                    updates.accept(n -> {
                        n.cap(node, cap);
                        n.throttle(node, 0);
                    });
                }
                case DVFS_ACTION -> {
                    if (!(throttle >= 0 && throttle <= 100)) {
                        respond(ex, 400, "{\"error\":\"throttlePct must be within [0, 100]\"}");
                        return;
                    }
                    caps.put(node, cap);
                    updates.accept(n -> {
                        n.liftCap(node);
                        n.throttle(node, throttle);
                    });
                }
                case GPU_ACTION -> {
                    double perBoard = body.path("capWattsPerGpu").asDouble(Double.NaN);
                    if (!gpus.containsKey(node)) {
                        respond(ex, 400, "{\"error\":\"" + node + " has no GPU boards\"}");
                        return;
                    }
                    if (!(perBoard > 0) || !Double.isFinite(perBoard)) {
                        respond(ex, 400, "{\"error\":\"capWattsPerGpu must be a positive number\"}");
                        return;
                    }
                    gpuCaps.put(node, perBoard);
                    updates.accept(n -> n.gpuCap(node, perBoard));
                }
                default -> {
                    respond(ex, 400, "{\"error\":\"unknown action " + quote(action) + "\"}");
                    return;
                }
            }
            respond(ex, 200, "{\"applied\":true}");
        }
    }

    private void telemetry(HttpExchange ex) throws IOException {
        try (ex) {
            String node = nodeOf(ex, "/telemetry/");
            if (node == null) {
                return;
            }
            int i = index.get(node);
            GpuModel gpu = gpus.get(node);
            if (gpu == null) {
                respond(ex, 200, String.format(Locale.ROOT, "{\"packagePowerWatts\":%.3f}", power[i]));
                return;
            }
            ObjectNode body = JSON.createObjectNode().put("packagePowerWatts", round(power[i] - gpuPower[i]));
            // each board's share of the boards' power: the twin does not track which board a job holds
            ArrayNode devices = body.putObject("gpu").putArray("devices");
            ArrayNode boards = body.putObject("hardware").putObject("gpu").put("vendor", "nvidia").put("model", "simulated board")
                    .put("count", gpu.boards()).putArray("devices");
            for (int b = 0; b < gpu.boards(); b++) {
                devices.addObject().put("index", b).put("name", "simulated board").put("capWatts", round(gpuLimit[i]))
                        .put("powerWatts", round(gpuPower[i] / gpu.boards()));
                boards.addObject().put("index", b).put("name", "simulated board").put("minWatts", gpu.board().capMinWatts())
                        .put("maxWatts", gpu.board().capMaxWatts()).put("defaultWatts", gpu.defaultLimitWatts())
                        .put("limitWatts", round(gpuLimit[i]));
            }
            respond(ex, 200, JSON.writeValueAsString(body));
        }
    }

    /** The simulated node named by the path, or null after answering 404. */
    private String nodeOf(HttpExchange ex, String prefix) throws IOException {
        String node = ex.getRequestURI().getPath().substring(prefix.length());
        if (index.containsKey(node)) {
            return node;
        }
        respond(ex, 404, "{\"error\":\"no simulated node " + quote(node) + "\"}");
        return null;
    }

    private static double round(double watts) {
        return Math.round(watts * 1000) / 1000.0;
    }

    private static String quote(String s) {
        try {
            return JSON.writeValueAsString(s).replace("\"", "'");
        } catch (JsonProcessingException e) {
            return "?";
        }
    }

    private static void respond(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        ex.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        if (http != null) {
            http.stop(0);
            pool.shutdownNow();
        }
    }
}
