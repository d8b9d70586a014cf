package io.joulie.agent.control.cpu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.Observed;
import io.joulie.api.v1alpha1.ControlResult;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.CpuControlMode;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.CpuHttpControl;
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
import java.util.OptionalDouble;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The HTTP control backend against a real HTTP server on 127.0.0.1. */
class HttpCpuControlTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final InstantSource CLOCK = InstantSource.fixed(Instant.parse("2026-11-21T10:00:00Z"));

    private HttpServer server;
    private final List<String> paths = new CopyOnWriteArrayList<>();
    private final List<JsonNode> bodies = new CopyOnWriteArrayList<>();
    private final AtomicInteger status = new AtomicInteger(200);
    /** Held by a test that wants the endpoint to wait (never past the test's end). */
    private volatile CountDownLatch answer = new CountDownLatch(0);
    private final AtomicInteger answered = new AtomicInteger();
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            paths.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath());
            bodies.add(JSON.readTree(exchange.getRequestBody().readAllBytes()));
            try {
                answer.await(30, TimeUnit.SECONDS); // bounded: a timeout that does not fire fails the test instead of hanging it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status.get(), body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
            answered.incrementAndGet();
        });
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.start();
    }

    @AfterEach
    void stopServer() {
        server.stop(0);
    }

    private String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    @Test
    void postsTheRaplActionWithNodeCapAndTimestampAndReportsApplied() {
        HttpCpuControl control = new HttpCpuControl(http, "sim-7", new CpuHttpControl(url("/nodes/{node}/cap"), 2, null), CLOCK);

        ControlOutcome out = control.enforce(240, OptionalDouble.empty());

        assertThat(paths).containsExactly("POST /nodes/sim-7/cap");
        JsonNode body = bodies.getFirst();
        assertThat(body.get("node").asText()).isEqualTo("sim-7");
        assertThat(body.get("action").asText()).isEqualTo("rapl.set_power_cap_watts");
        assertThat(body.get("capWatts").asDouble()).isEqualTo(240.0);
        assertThat(body.get("throttlePct").asInt()).isZero();
        assertThat(body.get("ts").asText()).isEqualTo("2026-11-21T10:00:00Z");
        assertThat(out.backend()).isEqualTo(CpuBackend.HTTP);
        assertThat(out.result()).isEqualTo(ControlResult.APPLIED);
        assertThat(out.message()).contains("HTTP 200");
        assertThat(out.observed()).containsEntry(Observed.CAP_WATTS, 240.0);
    }

    @Test
    void anUnchangedRequestIsNotSentAgainButAChangedCapIs() {
        HttpCpuControl control = new HttpCpuControl(http, "n", new CpuHttpControl(url("/cap"), 2, CpuControlMode.RAPL), CLOCK);
        control.enforce(240, OptionalDouble.empty());
        assertThat(control.enforce(240, OptionalDouble.empty()).result()).isEqualTo(ControlResult.APPLIED);
        assertThat(bodies).hasSize(1);
        control.enforce(120, OptionalDouble.empty());
        assertThat(bodies).hasSize(2);
        assertThat(bodies.get(1).get("capWatts").asDouble()).isEqualTo(120.0);
    }

    @Test
    void dvfsModeSendsTheThrottleAction() {
        HttpCpuControl control = new HttpCpuControl(http, "n", new CpuHttpControl(url("/t"), 2, CpuControlMode.DVFS), CLOCK);
        ControlOutcome out = control.enforce(100, OptionalDouble.empty());
        assertThat(bodies.getFirst().get("action").asText()).isEqualTo("dvfs.set_throttle_pct");
        assertThat(bodies.getFirst().get("capWatts").asDouble()).isEqualTo(100.0);
        assertThat(out.observed()).containsEntry(Observed.THROTTLE_PCT, 0.0);
    }

    @Test
    void aBadReadingOrCapInDvfsModeIsReportedAsAnErrorNotThrown() {
        HttpCpuControl control = new HttpCpuControl(http, "n", new CpuHttpControl(url("/t"), 2, CpuControlMode.DVFS), CLOCK);
        ControlOutcome negative = control.enforce(100, OptionalDouble.of(-5));
        assertThat(negative.result()).isEqualTo(ControlResult.ERROR);
        assertThat(negative.message()).contains("package power must be a finite number");
        ControlOutcome nan = control.enforce(Double.NaN, OptionalDouble.of(80));
        assertThat(nan.result()).isEqualTo(ControlResult.ERROR);
        assertThat(nan.message()).contains("cap must be a finite number");
        assertThat(bodies).isEmpty();
    }

    @Test
    void a500IsAnErrorNamingTheStatusAndIsRetried() {
        status.set(500);
        HttpCpuControl control = new HttpCpuControl(http, "n", new CpuHttpControl(url("/cap"), 2, null), CLOCK);

        ControlOutcome out = control.enforce(240, OptionalDouble.empty());

        assertThat(out.result()).isEqualTo(ControlResult.ERROR);
        assertThat(out.message()).contains("HTTP 500").contains(url("/cap"));
        status.set(204);
        assertThat(control.enforce(240, OptionalDouble.empty()).result()).isEqualTo(ControlResult.APPLIED);
        assertThat(bodies).hasSize(2);
    }

    /**
     * The endpoint answers only once the test lets it, after the call has returned: so the call can have returned
     * only because its timeout ran out, and no wall clock needs to be read.
     */
    @Test
    void aSlowEndpointTimesOutAsAnError() {
        answer = new CountDownLatch(1);
        HttpCpuControl control = new HttpCpuControl(http, "n", new CpuHttpControl(url("/slow"), 1, null), CLOCK);
        try {
            ControlOutcome out = control.enforce(240, OptionalDouble.empty());

            assertThat(out.result()).isEqualTo(ControlResult.ERROR);
            assertThat(out.message()).contains("timed out after 1 s");
            assertThat(answered).hasValue(0);
        } finally {
            answer.countDown();
        }
    }

    @Test
    void anUnreachableEndpointIsAnError() throws IOException {
        int port;
        try (var s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        HttpCpuControl control = new HttpCpuControl(http, "n", new CpuHttpControl("http://127.0.0.1:" + port + "/x", 1, null), CLOCK);
        ControlOutcome out = control.enforce(240, OptionalDouble.empty());
        assertThat(out.result()).isEqualTo(ControlResult.ERROR);
        assertThat(out.message()).startsWith("POST http://127.0.0.1:" + port + "/x failed");
    }

    @Test
    void aMissingEndpointIsBlockedWithoutARequest() {
        HttpCpuControl control = new HttpCpuControl(http, "n", null, CLOCK);
        ControlOutcome out = control.enforce(240, OptionalDouble.empty());
        assertThat(out.result()).isEqualTo(ControlResult.BLOCKED);
        assertThat(bodies).isEmpty();
    }
}
