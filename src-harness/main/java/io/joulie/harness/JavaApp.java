package io.joulie.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * One packaged Java application ({@code java -jar}) run as a subprocess: the operator or the agent for the twin's
 * cluster mode and for the end-to-end tests. Each start gets free HTTP and management ports (unless the
 * environment names them), writes stdout and stderr to {@code <logDir>/<name>.log}, and stops on {@link #close()}
 * with SIGTERM, as Kubernetes stops a Pod.
 */
public final class JavaApp implements AutoCloseable {
    /** The two applications, where the reactor packages them (relative to the repository root). */
    public enum Packaged {
        OPERATOR("src/target/quarkus-app/quarkus-run.jar"),
        AGENT("src-agent/target/quarkus-app/quarkus-run.jar");

        private final String path;

        Packaged(String path) {
            this.path = path;
        }

        /** The runner jar under {@code repo}. */
        public Path jar(Path repo) {
            return repo.resolve(path);
        }
    }

    /** A quick start and a small footprint: C1 only and the serial collector (peak compiled speed does not matter). */
    public static final List<String> SMALL_JVM = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
    /** Always passed: native access for the agent's FFM calls, and Netty's Unsafe warnings on JDK 25 silenced. */
    static final List<String> BASE_JVM = List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow");
    /** The java launcher of the running JVM. */
    public static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);

    private final String name;
    private final Process process;
    private final Path log;
    private final int managementPort;

    private JavaApp(String name, Process process, Path log, int managementPort) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.managementPort = managementPort;
    }

    /** Starts {@code jar} with {@link #SMALL_JVM}. */
    public static JavaApp start(String name, Path jar, Map<String, String> env, Path logDir) throws IOException {
        return start(name, jar, env, logDir, SMALL_JVM);
    }

    /**
     * Starts {@code java <jvmOptions> -jar <jar>} with this environment added to the current one, plus
     * {@code QUARKUS_HTTP_PORT} and {@code QUARKUS_MANAGEMENT_PORT} on free ports unless {@code env} sets them.
     *
     * @throws IllegalStateException when the jar is missing (not built yet)
     */
    public static JavaApp start(String name, Path jar, Map<String, String> env, Path logDir, List<String> jvmOptions)
            throws IOException {
        return start(name, jar, env, logDir, jvmOptions, UnaryOperator.identity());
    }

    /**
     * As above, with the {@code java} command line run by {@code launcher}: a memory cgroup wraps it in a shell that
     * moves itself into the cgroup and then execs it, so the JVM sees the limit from its start.
     */
    public static JavaApp start(String name, Path jar, Map<String, String> env, Path logDir, List<String> jvmOptions,
            UnaryOperator<List<String>> launcher) throws IOException {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("packaged " + name + " is missing at " + jar
                    + ": build it first (./mvnw -pl src,src-agent -am package -DskipTests, or the whole reactor)");
        }
        List<String> command = new ArrayList<>(List.of(JAVA.toString()));
        command.addAll(BASE_JVM);
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar.toString()));
        ProcessBuilder pb = new ProcessBuilder(launcher.apply(command));
        pb.environment().putAll(env);
        pb.environment().putIfAbsent("QUARKUS_HTTP_PORT", Integer.toString(freePort()));
        pb.environment().putIfAbsent("QUARKUS_MANAGEMENT_PORT", Integer.toString(freePort()));
        int management = Integer.parseInt(pb.environment().get("QUARKUS_MANAGEMENT_PORT"));
        Files.createDirectories(logDir);
        Path log = logDir.resolve(name + ".log");
        pb.redirectErrorStream(true).redirectOutput(log.toFile());
        return new JavaApp(name, pb.start(), log, management);
    }

    /**
     * The environment that points a Quarkus application at an API server by URL (certificates trusted, namespace
     * {@code default}): the embedded mock server.
     */
    public static Map<String, String> apiServer(String url) {
        return Map.of("QUARKUS_KUBERNETES_CLIENT_API_SERVER_URL", url, "QUARKUS_KUBERNETES_CLIENT_TRUST_CERTS", "true",
                "QUARKUS_KUBERNETES_CLIENT_NAMESPACE", "default");
    }

    /** The environment that points a Quarkus application at the API server of a kubeconfig file. */
    public static Map<String, String> kubeconfig(Path file) {
        return Map.of("KUBECONFIG", file.toAbsolutePath().toString(), "QUARKUS_KUBERNETES_CLIENT_NAMESPACE", "default");
    }

    /**
     * A TCP port free at the time of the call, for a process started later to listen on. It is taken below the kernel's
     * ephemeral range ({@code ip_local_port_range}): a port the kernel hands out for {@code bind(0)} may be taken by any
     * outgoing connection (the API server's to etcd, a client's to the API server) before that process binds it, and the
     * process then fails to start. Below the range only another listener can take it; this JVM never hands one out twice.
     */
    public static int freePort() {
        return FreePorts.next();
    }

    public String name() {
        return name;
    }

    public Process process() {
        return process;
    }

    public Path log() {
        return log;
    }

    public int managementPort() {
        return managementPort;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * GET on the management interface (metrics, health): the body, or null while it does not answer 200. HTTP/1.1, as
     * {@code PrometheusText.scrape}: the JDK client's h2c upgrade can leave a request to the management port unanswered.
     */
    public String get(String path) {
        try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2))
                .build()) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + path))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The process's resident set size and its peak, in KiB, from /proc (Linux). */
    public long[] rssKiB() throws IOException {
        return rssKiB(process.pid());
    }

    /** Any process's resident set size (VmRSS) and its peak (VmHWM), in KiB, from /proc (Linux). */
    public static long[] rssKiB(long pid) throws IOException {
        long rss = 0;
        long peak = 0;
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.replaceAll("\\D", ""));
            } else if (line.startsWith("VmHWM:")) {
                peak = Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        return new long[] {rss, peak};
    }

    /** Every line logged so far. */
    public List<String> logLines() {
        try {
            return Files.readAllLines(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The last {@code count} lines logged, one string (for an error message). */
    public String tail(int count) {
        return tail(log, count);
    }

    /** The last {@code count} lines of a log file as one string, or why there are none. */
    public static String tail(Path log, int count) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** kill -9: no shutdown hook, no clean-up, as an OOM kill or a node crash would end it. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** SIGTERM, then kill -9 if it has not exited within 20 s. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
