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
        assertThat(PowerTelemetry.parse("{\"packagePowerWatts\": 187.5, \"cpu\": {\"packagePowerWatts\": 1}}").packagePowerWatts())
                .isEqualTo(OptionalDouble.of(187.5));
    }

    @Test
    void readsPackagePowerUnderCpu() {
        assertThat(PowerTelemetry.parse("{\"node\":\"n\",\"cpu\":{\"packagePowerWatts\":93}}").packagePowerWatts()).isEqualTo(OptionalDouble.of(93));
    }

    @Test
    void noReadingWhenAbsentNotANumberOrNotJson() {
        assertThat(PowerTelemetry.parse("{\"gpu\":{\"packagePowerWatts\":1}}").packagePowerWatts()).isEmpty();
        assertThat(PowerTelemetry.parse("{\"packagePowerWatts\":\"hot\"}").packagePowerWatts()).isEmpty();
        assertThat(PowerTelemetry.parse("<html>").packagePowerWatts()).isEmpty();
    }

    @Test
    void negativeOrNonFiniteWattsAreNoReading() {
        assertThat(PowerTelemetry.parse("{\"packagePowerWatts\": -3.5}").packagePowerWatts()).isEmpty();
        assertThat(PowerTelemetry.parse("{\"cpu\": {\"packagePowerWatts\": -1}}").packagePowerWatts()).isEmpty();
        assertThat(PowerTelemetry.parse("{\"packagePowerWatts\": 0}").packagePowerWatts()).isEqualTo(OptionalDouble.of(0));
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
            assertThat(PowerTelemetry.parse(PowerTelemetry.get(http, NodeEndpoint.forNode(base + "/ok/{node}", "n1"), 2)).packagePowerWatts())
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
        assertThat(PowerTelemetry.parse(body).gpus()).containsExactly(
                new GpuSample(3, "sim-H100", OptionalDouble.of(420), OptionalDouble.of(300.5), OptionalDouble.of(12)),
                new GpuSample(1, "", OptionalDouble.empty(), OptionalDouble.empty(), OptionalDouble.empty()));
        NodeHardwareStatus hardware = PowerTelemetry.parse(body).hardware().orElseThrow();
        assertThat(hardware.cpu().packages()).singleElement().satisfies(p -> assertThat(p.maxWatts()).isEqualTo(250.0));
        assertThat(hardware.gpu().devices()).singleElement().satisfies(d -> {
            assertThat(d.minWatts()).isEqualTo(200.0);
            assertThat(d.maxWatts()).isEqualTo(700.0);
        });
        assertThat(PowerTelemetry.parse("{\"packagePowerWatts\":3}").hardware()).isEmpty();
        assertThat(PowerTelemetry.parse("{\"hardware\":{\"gpu\":{\"count\":\"many\"}}}").hardware()).isEmpty();
        assertThat(PowerTelemetry.parse("<html>").gpus()).isEmpty();
    }
}
