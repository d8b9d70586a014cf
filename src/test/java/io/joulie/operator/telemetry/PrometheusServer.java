package io.joulie.operator.telemetry;

import java.io.IOException;
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

    /** The basic-auth user of a {@link #secured} server, and its password (bcrypt-hashed in the web config). */
    public static final String USER = "joulie";
    public static final String PASSWORD = "joulie-test-password";
    private static final String PASSWORD_BCRYPT = "$2a$10$sGUGYsfFq6UqwsXBQcP5d.UGm9wt2iZkqrILk98OCItIuup8io4zG";

    private final Path binary;
    private final Path dir;
    private final int port;
    private final Path log;
    /** TLS and basic auth (Prometheus's web configuration file), or none. */
    private Path webConfig;
    private Process process;

    /**
     * A server that answers only over TLS, with a certificate of its own (made here with the JDK's keytool for
     * 127.0.0.1), and only to the basic-auth user {@link #USER}: Prometheus's own web configuration file
     * ({@code --web.config.file}). {@link #caFile()} is the certificate a client must trust.
     */
    public static PrometheusServer secured(String scrapeTarget) throws IOException, InterruptedException {
        PrometheusServer server = new PrometheusServer(scrapeTarget);
        Path p12 = server.dir.resolve("server.p12");
        run(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(), "-genkeypair", "-alias", "server",
                "-keyalg", "RSA", "-keysize", "2048", "-validity", "2", "-dname", "CN=prometheus.test",
                "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-storetype", "PKCS12", "-keystore", p12.toString(),
                "-storepass", "changeit", "-keypass", "changeit"));
        try (var in = Files.newInputStream(p12)) {
            java.security.KeyStore ks = java.security.KeyStore.getInstance("PKCS12");
            ks.load(in, "changeit".toCharArray());
            Files.writeString(server.dir.resolve("server.key"), pem("PRIVATE KEY",
                    ks.getKey("server", "changeit".toCharArray()).getEncoded()));
            Files.writeString(server.caFile(), pem("CERTIFICATE", ks.getCertificate("server").getEncoded()));
        } catch (java.security.GeneralSecurityException e) {
            throw new IOException(e);
        }
        server.webConfig = Files.writeString(server.dir.resolve("web-config.yml"), """
                tls_server_config:
                  cert_file: %s
                  key_file: %s
                basic_auth_users:
                  %s: %s
                """.formatted(server.caFile(), server.dir.resolve("server.key"), USER, PASSWORD_BCRYPT));
        return server;
    }

    /** The PEM certificate of a {@link #secured} server. */
    public Path caFile() {
        return dir.resolve("server.crt");
    }

    /** A file of this server's directory holding {@code content} (a password or token file for a client). */
    public Path file(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content);
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + java.util.Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException(command + " failed: " + out);
        }
    }

    public PrometheusServer(String scrapeTarget) throws IOException {
        this.binary = locate();
        this.dir = Files.createTempDirectory("joulie-prometheus");
        this.log = dir.resolve("prometheus.log");
        this.port = io.joulie.harness.JavaApp.freePort();
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
        return URI.create((webConfig == null ? "http" : "https") + "://127.0.0.1:" + port);
    }

    public PrometheusServer start() throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of(binary.toString(),
                "--config.file=" + dir.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port,
                "--log.level=warn"));
        if (webConfig != null) {
            command.add("--web.config.file=" + webConfig);
        }
        process = new ProcessBuilder(command)
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
        try {
            Credentials credentials = webConfig == null ? Credentials.NONE
                    : new Credentials(java.util.Optional.empty(), java.util.Optional.of(USER), java.util.Optional.of(passwordFile()),
                    java.util.Optional.of(caFile()));
            return ready(credentials);
        } catch (IOException e) {
            return false;
        }
    }

    private boolean ready(Credentials credentials) {
        try (HttpClient http = client(credentials)) {
            HttpRequest.Builder request = HttpRequest.newBuilder(url().resolve("/-/ready")).timeout(Duration.ofSeconds(1));
            credentials.authorization().ifPresent(a -> request.header("Authorization", a));
            var r = http.send(request.build(), HttpResponse.BodyHandlers.discarding());
            return r.statusCode() == 200;
        } catch (IOException | java.security.GeneralSecurityException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** A file holding the right password of a {@link #secured} server. */
    public Path passwordFile() throws IOException {
        Path f = dir.resolve("password");
        return Files.exists(f) ? f : file("password", PASSWORD + "\n");
    }

    /** An HTTP client that trusts what {@code credentials} trust. */
    public static HttpClient client(Credentials credentials) throws IOException, java.security.GeneralSecurityException {
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1));
        credentials.sslContext().ifPresent(b::sslContext);
        return b.build();
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
