package io.joulie.operator.telemetry;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A token-checking proxy in front of a real Prometheus, as OpenShift puts kube-rbac-proxy in front of its Thanos
 * querier: a request without {@code Authorization: Bearer <the expected token>} gets 401, any other is passed on,
 * with the credentials the backend wants. Prometheus itself cannot check bearer tokens.
 */
final class BearerProxy implements AutoCloseable {
    private final HttpServer server;
    private volatile String expected;

    BearerProxy(PrometheusServer backend, Credentials toBackend, String expectedToken) throws Exception {
        this.expected = expectedToken;
        HttpClient client = PrometheusServer.client(toBackend);
        String backendAuth = toBackend.authorization().orElseThrow();
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            try (exchange) {
                if (!("Bearer " + expected).equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
                    exchange.sendResponseHeaders(401, -1);
                    return;
                }
                HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(backend.url().resolve(exchange.getRequestURI().toString()))
                        .header("Authorization", backendAuth).timeout(Duration.ofSeconds(2)).build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(r.statusCode(), r.body().length == 0 ? -1 : r.body().length);
                exchange.getResponseBody().write(r.body());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        server.start();
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** From now on only this token is let through. */
    void expect(String token) {
        this.expected = token;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
