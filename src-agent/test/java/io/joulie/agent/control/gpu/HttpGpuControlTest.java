package io.joulie.agent.control.gpu;

import com.sun.net.httpserver.HttpServer;
import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.NodeFacts;
import io.joulie.agent.control.Observed;
import io.joulie.agent.host.CapRequest;
import io.joulie.api.v1alpha1.ControlResult;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.GpuHttpControl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The HTTP GPU backend against a real HTTP server on 127.0.0.1. */
class HttpGpuControlTest {
    static final InstantSource CLOCK = InstantSource.fixed(Instant.parse("2026-11-24T10:00:00Z"));
    final List<String> requests = new CopyOnWriteArrayList<>();
    final AtomicInteger status = new AtomicInteger(200);
    HttpServer server;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> {
            requests.add(ex.getRequestURI().getPath() + " " + new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            ex.sendResponseHeaders(status.get(), -1);
            ex.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    HttpGpuControl control() {
        return new HttpGpuControl(HttpClient.newHttpClient(), "sim-3",
                new GpuHttpControl("http://127.0.0.1:" + server.getAddress().getPort() + "/control/{node}", 2, null), CLOCK);
    }

    @Test
    void postsTheGpuActionOnceAndAgainOnlyWhenItChangesOrFailed() {
        HttpGpuControl control = control();
        ControlOutcome out = control.enforce(new CapRequest.Watts(300), NodeFacts.of(OptionalDouble.empty()));

        assertThat(out.backend()).isEqualTo(GpuBackend.HTTP);
        assertThat(out.result()).isEqualTo(ControlResult.APPLIED);
        assertThat(out.observed()).containsEntry(Observed.CAP_WATTS_PER_GPU, 300.0);
        assertThat(requests).singleElement().asString().isEqualTo("/control/sim-3 {\"node\":\"sim-3\",\"action\":\"gpu.set_power_cap_watts\","
                + "\"capWattsPerGpu\":300.0,\"ts\":\"2026-11-24T10:00:00Z\"}");
        control.enforce(new CapRequest.Watts(300), NodeFacts.of(OptionalDouble.empty()));
        assertThat(requests).hasSize(1);

        status.set(503);
        ControlOutcome failed = control.enforce(new CapRequest.Watts(250), NodeFacts.of(OptionalDouble.empty()));
        assertThat(failed.result()).isEqualTo(ControlResult.ERROR);
        assertThat(failed.message()).endsWith("answered HTTP 503");
        status.set(200);
        assertThat(control.enforce(new CapRequest.Watts(250), NodeFacts.of(OptionalDouble.empty())).result()).isEqualTo(ControlResult.APPLIED);
        assertThat(requests).hasSize(3);
    }

    @Test
    void aPercentWithoutTheBoardsMaximaIsBlockedAndNothingIsSent() {
        ControlOutcome out = control().enforce(new CapRequest.Percent(60), new NodeFacts(OptionalDouble.empty(), Optional.empty()));
        assertThat(out.result()).isEqualTo(ControlResult.BLOCKED);
        assertThat(out.message()).startsWith("a percent cap needs each board's maximum");
        assertThat(requests).isEmpty();
    }

    @Test
    void withoutAnEndpointTheCapIsBlocked() {
        HttpGpuControl control = new HttpGpuControl(HttpClient.newHttpClient(), "sim-3", null, CLOCK);
        assertThat(control.enforce(new CapRequest.Watts(300), NodeFacts.of(OptionalDouble.empty())).message())
                .isEqualTo("controls.gpu.http.endpoint is not set");
    }
}
