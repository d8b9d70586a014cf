package io.joulie.operator.telemetry;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * A real Prometheus server for tests: Debian's {@code prometheus} binary on loopback, a free port, a
 * temporary storage directory, scraping one target every second. Stop and start keep port and storage,
 * as a restarted server in a cluster would.
 */
public final class PrometheusServer implements AutoCloseable {
    private static final List<String> CANDIDATES = List.of("/usr/bin/prometheus", "/usr/local/bin/prometheus");

    private final Path binary;
    private final Path dir;
    private final int port;
    private final Path log;
    private Process process;

    public PrometheusServer(String scrapeTarget) throws IOException {
        this.binary = locate();
        this.dir = Files.createTempDirectory("joulie-prometheus");
        this.log = dir.resolve("prometheus.log");
        try (ServerSocket s = new ServerSocket(0)) {
            this.port = s.getLocalPort();
        }
        Files.writeString(dir.resolve("prometheus.yml"), """
                global:
                  scrape_interval: 1s
                  scrape_timeout: 900ms
                  evaluation_interval: 1s
                scrape_configs:
                  - job_name: synthetic
                    static_configs:
                      - targets: ['%s']
                """.formatted(scrapeTarget));
    }

    /** The binary, or a failure that says how to install it: these tests must not pass without it. */
    static Path locate() {
        return locate(CANDIDATES, System.getenv().getOrDefault("PATH", ""));
    }

    static Path locate(List<String> candidates, String path) {
        for (String c : candidates) {
            if (Files.isExecutable(Path.of(c))) {
                return Path.of(c);
            }
        }
        for (String d : path.split(":")) {
            Path p = Path.of(d.isEmpty() ? "." : d, "prometheus");
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        throw new IllegalStateException("The 'prometheus' binary is not installed, and the telemetry tests need a real "
                + "Prometheus server. Install it with 'apt-get install -y prometheus' (Debian; .ci/run does this).");
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + port);
    }

    public PrometheusServer start() throws IOException, InterruptedException {
        process = new ProcessBuilder(binary.toString(),
                "--config.file=" + dir.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port,
                "--log.level=warn")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        if (!await(Duration.ofSeconds(30), this::ready)) {
            String output = Files.exists(log) ? Files.readString(log) : "";
            stop();
            throw new IllegalStateException("Prometheus did not become ready on port " + port + ":\n" + output);
        }
        return this;
    }

    public void stop() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        process = null;
    }

    private boolean ready() {
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build()) {
            var r = http.send(HttpRequest.newBuilder(url().resolve("/-/ready")).timeout(Duration.ofSeconds(1)).build(),
                    HttpResponse.BodyHandlers.discarding());
            return r.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Polls {@code condition} every 200 ms until it holds or {@code timeout} passes. */
    public static boolean await(Duration timeout, BooleanSupplier condition) throws InterruptedException {
        Instant end = Instant.now().plus(timeout);
        while (Instant.now().isBefore(end)) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(200);
        }
        return condition.getAsBoolean();
    }

    @Override
    public void close() throws IOException, InterruptedException {
        stop();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
