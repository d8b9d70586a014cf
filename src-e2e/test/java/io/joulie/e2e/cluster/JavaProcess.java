package io.joulie.e2e.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/** One packaged application (java -jar quarkus-run.jar) started by the suite, its log, its management port. */
public final class JavaProcess implements AutoCloseable {
    public final String name;
    public final Process process;
    public final Path log;
    public final int managementPort;

    private JavaProcess(String name, Process process, Path log, int managementPort) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.managementPort = managementPort;
    }

    /** The suite's JVM options: quick to start, small (C1 only, serial GC). */
    static final List<String> TEST_JVM = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    /** The java launcher of the JVM running the suite (JDK 25). */
    static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");

    static JavaProcess start(String name, Path jar, Map<String, String> env, Path logDir) throws IOException {
        return start(name, jar, env, logDir, TEST_JVM);
    }

    static JavaProcess start(String name, Path jar, Map<String, String> env, Path logDir, List<String> jvmOptions)
            throws IOException {
        return start(name, jar, env, logDir, jvmOptions, UnaryOperator.identity());
    }

    /** @param launcher what runs the {@code java} command line (a {@link MemoryCgroup} wraps it to start inside itself) */
    static JavaProcess start(String name, Path jar, Map<String, String> env, Path logDir, List<String> jvmOptions,
            UnaryOperator<List<String>> launcher) throws IOException {
        assertThat(jar).as("packaged " + name + " (run the reactor: ./mvnw verify)").exists();
        int management = ControlPlane.freePort();
        List<String> command = new java.util.ArrayList<>(List.of(JAVA.toString(), "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar.toString()));
        ProcessBuilder pb = new ProcessBuilder(launcher.apply(command));
        pb.environment().putAll(env);
        pb.environment().put("QUARKUS_HTTP_PORT", Integer.toString(ControlPlane.freePort()));
        pb.environment().put("QUARKUS_MANAGEMENT_PORT", Integer.toString(management));
        Path log = logDir.resolve(name + ".log");
        pb.redirectErrorStream(true).redirectOutput(log.toFile());
        return new JavaProcess(name, pb.start(), log, management);
    }

    /** GET on the management interface (metrics, health); the body, or null while it does not answer. */
    public String get(String path) {
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
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
        long rss = 0;
        long peak = 0;
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
            if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.replaceAll("\\D", ""));
            } else if (line.startsWith("VmHWM:")) {
                peak = Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        return new long[] {rss, peak};
    }

    public List<String> logLines() {
        try {
            return Files.readAllLines(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** kill -9: no shutdown hook, no clean-up, as an OOM kill or a node crash would end it. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
