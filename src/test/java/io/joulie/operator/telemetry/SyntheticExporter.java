package io.joulie.operator.telemetry;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * A local endpoint in the Prometheus text format serving whatever series a test sets, for a real
 * Prometheus to scrape.
 */
public final class SyntheticExporter implements AutoCloseable {
    private final HttpServer server;
    private final Map<String, String> series = new TreeMap<>();

    public SyntheticExporter() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/metrics", exchange -> {
            byte[] body = body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
    }

    /** host:port for a scrape config. */
    public String target() {
        return "127.0.0.1:" + server.getAddress().getPort();
    }

    /** Sets {@code metric{node="<node>"} value}. */
    public SyntheticExporter set(String metric, String node, double value) {
        return line(metric + "{node=\"" + node + "\"}", String.valueOf(value));
    }

    /** Sets a series with an explicit sample timestamp (milliseconds since the epoch). */
    public SyntheticExporter setAt(String metric, String node, double value, long timestampMillis) {
        return line(metric + "{node=\"" + node + "\"}", value + " " + timestampMillis);
    }

    /** Sets a series without labels (a cluster-wide scalar). */
    public SyntheticExporter set(String metric, double value) {
        return line(metric, String.valueOf(value));
    }

    public synchronized SyntheticExporter remove(String metric, String node) {
        series.remove(metric + "{node=\"" + node + "\"}");
        return this;
    }

    private synchronized SyntheticExporter line(String key, String value) {
        series.put(key, value);
        return this;
    }

    private synchronized String body() {
        StringBuilder sb = new StringBuilder();
        series.forEach((k, v) -> sb.append(k).append(' ').append(v).append('\n'));
        return sb.toString();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
