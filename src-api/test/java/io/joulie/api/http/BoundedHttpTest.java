package io.joulie.api.http;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The agent's HTTP exchanges end within their deadline, body included, and read at most the size limit: against a
 * server on 127.0.0.1 that answers at once, drips its body a byte at a time, or sends a body far larger than the
 * limit (the JDK's request timeout alone let a dripping body hold the caller for as long as the server liked).
 */
class BoundedHttpTest {
    HttpServer server;
    final CountDownLatch stop = new CountDownLatch(1);
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/ok", ex -> {
            byte[] b = "{\"packagePowerWatts\": 42}".getBytes();
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        server.createContext("/drip", ex -> {
            ex.sendResponseHeaders(200, 0); // chunked: headers now, the body a byte at a time
            try (OutputStream body = ex.getResponseBody()) {
                for (int i = 0; i < 600 && stop.getCount() > 0; i++) {
                    body.write('{');
                    body.flush();
                    stop.await(100, TimeUnit.MILLISECONDS);
                }
            } catch (IOException | InterruptedException closed) {
                // the client went away: what the test wants
            }
        });
        server.createContext("/huge", ex -> {
            byte[] chunk = new byte[64 * 1024];
            Arrays.fill(chunk, (byte) ' ');
            ex.sendResponseHeaders(200, 0);
            try (OutputStream body = ex.getResponseBody()) {
                for (int i = 0; i < 1024 && stop.getCount() > 0; i++) { // 64 MiB unless the client stops reading
                    body.write(chunk);
                }
            } catch (IOException closed) {
                // the client cancelled
            }
        });
        server.start();
    }

    @AfterEach
    void close() {
        stop.countDown();
        server.stop(0);
    }

    HttpRequest get(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path))
                .timeout(Duration.ofSeconds(1)).GET().build();
    }

    @Test
    void aWholeAnswerWithinTheLimits() throws Exception {
        BoundedHttp.Answer answer = BoundedHttp.send(http, get("/ok"), Duration.ofSeconds(2), BoundedHttp.MAX_BODY_BYTES);
        assertThat(answer.ok()).isTrue();
        assertThat(answer.body()).isEqualTo("{\"packagePowerWatts\": 42}");
    }

    @Test
    void aBodyThatDripsEndsAtTheDeadline() {
        long start = System.nanoTime();
        assertThatThrownBy(() -> BoundedHttp.send(http, get("/drip"), Duration.ofSeconds(1), BoundedHttp.MAX_BODY_BYTES))
                .isInstanceOf(HttpTimeoutException.class).hasMessage("no whole answer within 1 s");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the drip would last 60 s").isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void aBodyLargerThanTheLimitIsNotRead() {
        assertThatThrownBy(() -> BoundedHttp.send(http, get("/huge"), Duration.ofSeconds(20), BoundedHttp.MAX_BODY_BYTES))
                .isInstanceOf(IOException.class).hasMessageContaining("answer larger than 65536 bytes; not read");
    }
}
