package io.joulie.operator.telemetry;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Prometheus client against answers no Prometheus should give: one that drips its body (the JDK's request timeout
 * stops counting once the headers arrive) and one too large to hold.
 */
class PrometheusClientTest {
    HttpServer server;

    URI serve(com.sun.net.httpserver.HttpHandler handler) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/api/v1/query", handler);
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    @Test
    void anAnswerThatDripsIsCutAtTheTimeoutBodyIncluded() throws Exception {
        URI url = serve(exchange -> {
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[".getBytes());
                for (int i = 0; i < 30; i++) {
                    out.write(' ');
                    out.flush();
                    Thread.sleep(1_000);
                }
            } catch (InterruptedException | IOException e) {
                // the client went away
            }
        });
        PrometheusClient client = new PrometheusClient(url, Duration.ofSeconds(1), Credentials.NONE);

        long start = System.nanoTime();
        assertThatThrownBy(() -> client.query("up")).isInstanceOf(PrometheusClient.QueryException.class)
                .hasMessageContaining("unreachable").satisfies(e ->
                        assertThat(((PrometheusClient.QueryException) e).reason()).isEqualTo("unreachable"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the whole exchange ends within its timeout")
                .isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void anAnswerLargerThanTheLimitIsNotRead() throws Exception {
        URI url = serve(exchange -> {
            exchange.sendResponseHeaders(200, 0);
            byte[] chunk = new byte[1 << 20];
            java.util.Arrays.fill(chunk, (byte) ' ');
            try (OutputStream out = exchange.getResponseBody()) {
                for (int i = 0; i <= PrometheusClient.MAX_BODY_BYTES >> 20; i++) {
                    out.write(chunk);
                }
            } catch (IOException e) {
                // the client stopped reading
            }
        });
        PrometheusClient client = new PrometheusClient(url, Duration.ofSeconds(10), Credentials.NONE);

        assertThatThrownBy(() -> client.query("up")).isInstanceOf(PrometheusClient.QueryException.class)
                .hasMessageContaining("larger than " + PrometheusClient.MAX_BODY_BYTES + " bytes");
    }

    /**
     * A token file with a line break inside the token: the query fails with a message naming the file (not the token),
     * nothing is sent, and the telemetry read reports it as a failed read instead of throwing out of the tick.
     */
    @Test
    void aTokenThatCannotGoInAHeaderFailsThatReadWithAClearMessage(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.util.concurrent.atomic.AtomicInteger requests = new java.util.concurrent.atomic.AtomicInteger();
        URI url = serve(exchange -> {
            requests.incrementAndGet();
            exchange.sendResponseHeaders(500, -1);
            exchange.close();
        });
        java.nio.file.Path token = java.nio.file.Files.writeString(dir.resolve("token"), "first-half\nsecond-half\n");
        Credentials credentials = new Credentials(java.util.Optional.of(token), java.util.Optional.empty(), java.util.Optional.empty(),
                java.util.Optional.empty());
        PrometheusClient client = new PrometheusClient(url, Duration.ofSeconds(2), credentials);

        assertThatThrownBy(() -> client.query("up")).isInstanceOf(PrometheusClient.QueryException.class)
                .hasMessageContaining("the credentials for Prometheus at " + url + " cannot be read")
                .hasMessageContaining(token + " must hold the token alone, without spaces or line breaks inside it: character 11 "
                        + "(code 10) cannot be sent in an HTTP header")
                .message().doesNotContain("first-half").doesNotContain("second-half");
        assertThat(requests).hasValue(0);

        PrometheusTelemetry telemetry = new PrometheusTelemetry(new TelemetryConfig(url, null, java.util.Optional.of("power"),
                java.util.Optional.empty(), java.util.Optional.empty(), java.util.Optional.empty(), Duration.ofSeconds(2), null, credentials));
        PrometheusTelemetry.Reading reading = telemetry.read();
        assertThat(reading.failure()).contains("query_error");
        assertThat(requests).hasValue(0);
    }
}
