package io.joulie.agent.power;

import com.sun.net.httpserver.HttpServer;
import io.joulie.agent.routing.NodeEndpoint;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.OptionalDouble;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PowerTelemetryTest {
    @Test
    void readsPackagePowerAtTopLevel() {
        assertThat(PowerTelemetry.parseHttp("{\"packagePowerWatts\": 187.5, \"cpu\": {\"packagePowerWatts\": 1}}"))
                .isEqualTo(OptionalDouble.of(187.5));
    }

    @Test
    void readsPackagePowerUnderCpu() {
        assertThat(PowerTelemetry.parseHttp("{\"node\":\"n\",\"cpu\":{\"packagePowerWatts\":93}}")).isEqualTo(OptionalDouble.of(93));
    }

    @Test
    void noReadingWhenAbsentNotANumberOrNotJson() {
        assertThat(PowerTelemetry.parseHttp("{\"gpu\":{\"packagePowerWatts\":1}}")).isEmpty();
        assertThat(PowerTelemetry.parseHttp("{\"packagePowerWatts\":\"hot\"}")).isEmpty();
        assertThat(PowerTelemetry.parseHttp("<html>")).isEmpty();
    }

    @Test
    void negativeOrNonFiniteWattsAreNoReading() {
        assertThat(PowerTelemetry.parseHttp("{\"packagePowerWatts\": -3.5}")).isEmpty();
        assertThat(PowerTelemetry.parseHttp("{\"cpu\": {\"packagePowerWatts\": -1}}")).isEmpty();
        assertThat(PowerTelemetry.parseHttp("{\"packagePowerWatts\": 0}")).isEqualTo(OptionalDouble.of(0));
        for (String value : new String[]{"\"NaN\"", "\"-12\"", "\"+Inf\"", "\"-Inf\"", "-4"}) {
            assertThat(PowerTelemetry.parsePrometheus("{\"data\":{\"result\":[{\"metric\":{},\"value\":[1.7e9," + value + "]}]}}"))
                    .as(value).isEmpty();
        }
    }

    @Test
    void readsTheFirstPrometheusSample() {
        String body = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},\"value\":[1.7e9,\"151.25\"]}]}}";
        assertThat(PowerTelemetry.parsePrometheus(body)).isEqualTo(OptionalDouble.of(151.25));
        assertThat(PowerTelemetry.parsePrometheus("{\"data\":{\"result\":[]}}")).isEmpty();
        assertThat(PowerTelemetry.prometheusUrl("http://p:9090/", "sum(x{node=\"{node}\"})", "n1"))
                .isEqualTo("http://p:9090/api/v1/query?query=sum%28x%7Bnode%3D%22n1%22%7D%29");
    }

    @Test
    void getsOverHttpAndRefusesNon2xx() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/ok/n1", ex -> {
            byte[] b = "{\"cpu\":{\"packagePowerWatts\":42}}".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        server.createContext("/bad", ex -> {
            ex.sendResponseHeaders(503, -1);
            ex.close();
        });
        server.start();
        try {
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            HttpClient http = HttpClient.newHttpClient();
            assertThat(PowerTelemetry.parseHttp(PowerTelemetry.get(http, NodeEndpoint.forNode(base + "/ok/{node}", "n1"), 2)))
                    .isEqualTo(OptionalDouble.of(42));
            assertThatThrownBy(() -> PowerTelemetry.get(http, base + "/bad", 2)).isInstanceOf(IOException.class)
                    .hasMessageContaining("HTTP 503");
        } finally {
            server.stop(0);
        }
    }

    @Test
    void readsTheGpuBoardsAndTheHardwareATelemetryEndpointDescribes() {
        String body = "{\"gpu\":{\"devices\":[{\"index\":3,\"name\":\"sim-H100\",\"capWatts\":420,\"powerWatts\":300.5,"
                + "\"energyJoules\":12},{\"powerWatts\":-1}]},\"hardware\":{\"cpu\":{\"packages\":[{\"zone\":\"p0\",\"maxWatts\":250}]},"
                + "\"gpu\":{\"model\":\"sim-H100\",\"devices\":[{\"index\":3,\"minWatts\":200,\"maxWatts\":700}],\"extra\":1}}}";
        assertThat(PowerTelemetry.parseGpus(body)).containsExactly(
                new GpuSample(3, "sim-H100", OptionalDouble.of(420), OptionalDouble.of(300.5), OptionalDouble.of(12)),
                new GpuSample(1, "", OptionalDouble.empty(), OptionalDouble.empty(), OptionalDouble.empty()));
        NodeHardwareStatus hardware = PowerTelemetry.parseHardware(body).orElseThrow();
        assertThat(hardware.cpu().packages()).singleElement().satisfies(p -> assertThat(p.maxWatts()).isEqualTo(250.0));
        assertThat(hardware.gpu().devices()).singleElement().satisfies(d -> {
            assertThat(d.minWatts()).isEqualTo(200.0);
            assertThat(d.maxWatts()).isEqualTo(700.0);
        });
        assertThat(PowerTelemetry.parseHardware("{\"packagePowerWatts\":3}")).isEmpty();
        assertThat(PowerTelemetry.parseHardware("{\"hardware\":{\"gpu\":{\"count\":\"many\"}}}")).isEmpty();
        assertThat(PowerTelemetry.parseGpus("<html>")).isEmpty();
    }
}
