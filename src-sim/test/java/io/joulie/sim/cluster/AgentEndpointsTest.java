package io.joulie.sim.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.joulie.sim.GpuModel;
import io.joulie.sim.NodeCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

class AgentEndpointsTest {
    private final ConcurrentLinkedQueue<Consumer<NodeControls>> updates = new ConcurrentLinkedQueue<>();
    private final AgentEndpoints endpoints = new AgentEndpoints(List.of("node-0001", "node-0002"), updates::add);
    private final HttpClient http = HttpClient.newHttpClient();
    private final List<String> applied = new ArrayList<>();

    /** Records what the simulation thread would apply. */
    private final NodeControls nodes = new NodeControls() {
        @Override
        public void label(String node, String value) {
            applied.add(node + " label " + value);
        }

        @Override
        public void cap(String node, double watts) {
            applied.add(node + " cap " + watts);
        }

        @Override
        public void throttle(String node, double percent) {
            applied.add(node + " throttle " + percent);
        }

        @Override
        public void gpuCap(String node, double wattsPerBoard) {
            applied.add(node + " gpu cap " + wattsPerBoard);
        }

        @Override
        public void liftCap(String node) {
            applied.add(node + " cap lifted");
        }
    };

    @BeforeEach
    void start() throws Exception {
        endpoints.start();
    }

    @AfterEach
    void stop() {
        endpoints.close();
    }

    private HttpResponse<String> post(String node, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoints.port() + "/control/" + node))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoints.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private void drain() {
        for (Consumer<NodeControls> u; (u = updates.poll()) != null; ) {
            u.accept(nodes);
        }
    }

    @Test
    void raplCapsAndDvfsThrottlesReachTheSimulation() throws Exception {
        assertThat(post("node-0002", "{\"node\":\"node-0002\",\"action\":\"rapl.set_power_cap_watts\",\"capWatts\":260,"
                + "\"throttlePct\":0,\"ts\":\"2026-01-01T00:00:00Z\"}").statusCode()).isEqualTo(200);
        assertThat(applied).as("applied on the simulation thread only").isEmpty();
        drain();
        assertThat(applied).containsExactly("node-0002 cap 260.0", "node-0002 throttle 0.0");
        assertThat(endpoints.caps()).containsEntry("node-0002", 260.0).doesNotContainKey("node-0001");

        applied.clear();
        assertThat(post("node-0001", "{\"action\":\"dvfs.set_throttle_pct\",\"capWatts\":260,\"throttlePct\":30}").statusCode())
                .isEqualTo(200);
        drain();
        assertThat(applied).as("the throttle takes over, the cap is lifted").containsExactly("node-0001 cap lifted", "node-0001 throttle 30.0");
    }

    @Test
    void badCallsAreRefusedWithoutChangingAnything() throws Exception {
        assertThat(post("node-0009", "{\"action\":\"rapl.set_power_cap_watts\",\"capWatts\":260}").statusCode()).isEqualTo(404);
        assertThat(post("node-0001", "{\"action\":\"rapl.set_power_cap_watts\",\"capWatts\":-5}").statusCode()).isEqualTo(400);
        assertThat(post("node-0001", "{\"action\":\"rapl.set_power_cap_watts\"}").statusCode()).isEqualTo(400);
        assertThat(post("node-0001", "{\"action\":\"dvfs.set_throttle_pct\",\"throttlePct\":150}").statusCode()).isEqualTo(400);
        HttpResponse<String> unknown = post("node-0001", "{\"action\":\"gpu.set_clock\",\"capWatts\":260}");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(unknown.body()).contains("unknown action 'gpu.set_clock'");
        assertThat(post("node-0001", "not json").statusCode()).isEqualTo(400);
        assertThat(get("/control/node-0001").statusCode()).isEqualTo(405);
        drain();
        assertThat(applied).isEmpty();
        assertThat(endpoints.caps()).isEmpty();
    }

    @Test
    void telemetryAnswersTheLatestMeasuredPower() throws Exception {
        endpoints.snapshot(new double[]{80, 259.5}, new double[2], new double[2]);
        HttpResponse<String> r = get("/telemetry/node-0002");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"packagePowerWatts\":259.500}");
        assertThat(get("/telemetry/nope").statusCode()).isEqualTo(404);
    }

    @Test
    void gpuLimitsReachTheBoardsOfGpuNodesAndTheirTelemetryDescribesThem() throws Exception {
        GpuModel a100 = NodeCatalog.types().get("gpu-a100x8").gpu();
        AgentEndpoints withGpus = new AgentEndpoints(List.of("node-0001", "node-0002"), Map.of("node-0002", a100), updates::add);
        withGpus.start();
        try {
            String base = "http://127.0.0.1:" + withGpus.port();
            assertThat(send(base + "/control/node-0002", "{\"node\":\"node-0002\",\"action\":\"gpu.set_power_cap_watts\","
                    + "\"capWattsPerGpu\":240,\"ts\":\"2026-01-01T00:00:00Z\"}").statusCode()).isEqualTo(200);
            HttpResponse<String> cpuNode = send(base + "/control/node-0001", "{\"action\":\"gpu.set_power_cap_watts\",\"capWattsPerGpu\":240}");
            assertThat(cpuNode.statusCode()).isEqualTo(400);
            assertThat(cpuNode.body()).contains("node-0001 has no GPU boards");
            assertThat(send(base + "/control/node-0002", "{\"action\":\"gpu.set_power_cap_watts\",\"capWattsPerGpu\":0}").statusCode())
                    .isEqualTo(400);
            drain();
            assertThat(applied).containsExactly("node-0002 gpu cap 240.0");
            assertThat(withGpus.gpuCaps()).containsExactly(Map.entry("node-0002", 240.0));

            // 1,000 W on the node, 900 W of it its boards (2 busy at 240 W, 6 idle at 70 W), every board limited to 240 W
            withGpus.snapshot(new double[]{80, 1000}, new double[]{0, 900}, new double[]{0, 240});
            JsonNode t = new ObjectMapper().readTree(http.send(HttpRequest.newBuilder(URI.create(base + "/telemetry/node-0002")).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
            assertThat(t.path("packagePowerWatts").asDouble()).as("the CPU part").isEqualTo(100.0);
            assertThat(t.path("gpu").path("devices")).hasSize(8);
            assertThat(t.path("gpu").path("devices").path(7).path("powerWatts").asDouble()).isEqualTo(112.5);
            assertThat(t.path("gpu").path("devices").path(0).path("capWatts").asDouble()).isEqualTo(240.0);
            JsonNode board = t.path("hardware").path("gpu").path("devices").path(3);
            assertThat(board.path("minWatts").asDouble()).isEqualTo(100.0);
            assertThat(board.path("maxWatts").asDouble()).as("what a percent cap is a share of").isEqualTo(400.0);
            assertThat(board.path("defaultWatts").asDouble()).isEqualTo(400.0);
            assertThat(t.path("hardware").path("gpu").path("count").asInt()).isEqualTo(8);
        } finally {
            withGpus.close();
        }
    }

    private HttpResponse<String> send(String url, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
