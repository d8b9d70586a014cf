package io.joulie.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Reads samples out of the Prometheus text format, as the applications serve it on {@code /q/metrics} of their
 * management port: {@link #scrape} fetches it, {@link #sum} adds up the samples of one metric.
 */
public final class PrometheusText {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private PrometheusText() {
    }

    /**
     * The sum of the samples of metric {@code name} (exactly that name, with or without labels) whose line
     * contains every one of {@code labels}, each written as it appears in the text ({@code kind="apply"}).
     * 0 when no sample matches.
     */
    public static double sum(String exposition, String name, String... labels) {
        double sum = 0;
        for (String line : exposition.split("\n")) {
            if (line.startsWith("#") || !(line.startsWith(name + "{") || line.startsWith(name + " "))) {
                continue;
            }
            boolean all = true;
            for (String label : labels) {
                all &= line.contains(label);
            }
            if (all) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    /** {@code GET http://localhost:<port>/q/metrics}; anything but a 200 fails the test with the status. */
    public static String scrape(int port) {
        // HTTP/1.1: the default HTTP/2 upgrade (h2c) can leave a request to the management port unanswered
        try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).build()) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/q/metrics"))
                    .timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new AssertionError("GET /q/metrics on port " + port + " answered " + r.statusCode());
            }
            return r.body();
        } catch (IOException e) {
            throw new UncheckedIOException("GET /q/metrics on port " + port, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** {@link #sum} over a fresh {@link #scrape} of {@code port}. */
    public static double metric(int port, String name, String... labels) {
        return sum(scrape(port), name, labels);
    }
}
