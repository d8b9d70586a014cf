package io.joulie.e2e.cluster;

import io.joulie.harness.JavaApp;
import io.joulie.testkit.PrometheusText;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * One operator process under {@link ScaleBenchmark}: started as one of three kinds, measured from {@code /proc} the
 * same way for all (CPU as utime + stime, RSS and its peak VmHWM), stopped with SIGTERM.
 * <ul>
 * <li>{@link #image}: the operator's OCI archive run as its container would run it: its own runtime, entrypoint, JVM
 * options, ahead-of-time cache and environment ({@code hack/images/chroot-run.sh}), in a memory cgroup with the
 * Deployment's limit, on the host's network.</li>
 * <li>{@link #hostJvm}: the packaged fast-jar on this JDK with the given JVM options (for comparing option sets).</li>
 * <li>{@link #goJoulie}: the Go Joulie's operator binary, built from a checkout given to the benchmark, in the same
 * memory cgroup, with its in-cluster configuration (a ServiceAccount token and the API server's certificate where
 * client-go looks, in a private mount namespace).</li>
 * </ul>
 */
abstract sealed class BenchedOperator implements AutoCloseable {
    /** The operator Deployment's memory limit ({@code kubernetes/20-operator.yml}); the Go Joulie runs under it too. */
    static final long MEMORY_LIMIT = 512L << 20;
    private static final long CLOCK_TICKS = clockTicks();

    final String label;
    /** When the measured process (the JVM, or the Go binary) began: the start of every duration measured. */
    final Instant started;
    private final long pid;

    private BenchedOperator(String label, long pid, Instant started) {
        this.label = label;
        this.pid = pid;
        this.started = started;
    }

    /** The process's CPU time so far (user and system, all threads), in seconds. */
    final double cpuSeconds() {
        try {
            return cpuSeconds(Path.of("/proc", Long.toString(pid), "stat"));
        } catch (IOException e) {
            throw new UncheckedIOException("the operator process " + pid + " is gone", e);
        }
    }

    /**
     * CPU seconds by thread name (numbered pool threads folded into one name: {@code vert.x-eventloop-thread-}), the
     * largest first: where {@link #cpuSeconds()} went.
     */
    final String cpuByThread(int top) {
        Map<String, Double> by = new java.util.HashMap<>();
        try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String name = Files.readString(task.resolve("comm")).strip().replaceAll("\\d+$", "");
                    by.merge(name, cpuSeconds(task.resolve("stat")), Double::sum);
                } catch (IOException ended) {
                    // a thread that ended between the listing and the read
                }
            }
        } catch (IOException e) {
            return "(threads unreadable: " + e.getMessage() + ")";
        }
        return by.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed()).limit(top)
                .map(e -> String.format(java.util.Locale.ROOT, "%s %.2f s", e.getKey(), e.getValue()))
                .collect(Collectors.joining(", "));
    }

    /** User and system CPU seconds of a process's or thread's {@code stat} file (fields 14 and 15 of proc(5)). */
    private static double cpuSeconds(Path stat) throws IOException {
        String text = Files.readString(stat);
        // counted from the state (field 3), after the command name, which may hold spaces and parentheses
        String[] f = text.substring(text.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / (double) CLOCK_TICKS;
    }

    /** Resident set size now and its peak, in KiB. */
    final long[] rssKiB() {
        try {
            return JavaApp.rssKiB(pid);
        } catch (IOException e) {
            throw new UncheckedIOException("the operator process " + pid + " is gone", e);
        }
    }

    final long pid() {
        return pid;
    }

    boolean alive() {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** Ticks run so far, from the operator's own metrics; empty where they are counted from the audit log instead. */
    OptionalLong ticks() {
        String m = metrics();
        return m == null ? OptionalLong.empty()
                : OptionalLong.of(Math.round(PrometheusText.sum(m, "joulie_tick_duration_seconds_count")));
    }

    /** Its Prometheus metrics, or null (the Go Joulie's are not read). */
    abstract String metrics();

    abstract String logTail();

    // ---------------------------------------------------------------------------------------------------------------

    /**
     * The operator's image (the OCI archive {@code archive}) as its container runs it. {@code env} is added to the image's
     * own environment.
     */
    static BenchedOperator image(RealCluster cluster, String name, Path archive, Map<String, String> env) throws IOException {
        Path in = Files.createDirectories(cluster.controlPlane.workDir().resolve(name + "-in"));
        Files.copy(cluster.serviceAccountKubeconfig(RealCluster.NAMESPACE, RealCluster.OPERATOR_SA),
                in.resolve("kubeconfig"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        int management = JavaApp.freePort();
        Map<String, String> all = new LinkedHashMap<>(operatorEnv(name));
        all.put("KUBECONFIG", "/tmp/in/kubeconfig");
        all.put("QUARKUS_HTTP_PORT", Integer.toString(JavaApp.freePort()));
        all.put("QUARKUS_MANAGEMENT_PORT", Integer.toString(management));
        all.putAll(env);
        ContainedProcess p = ContainedProcess.image(archive,
                MemoryCgroup.create("scale-" + name, MEMORY_LIMIT), new ContainedProcess.Options(all, in, null, null),
                cluster.controlPlane.workDir().resolve(name + ".log"));
        // the clock starts with the JVM, after the layers are unpacked (a runtime's pull and unpack)
        return new Image(name, p, Instant.now(), management);
    }

    /** The packaged fast-jar on this JDK, as {@link RealCluster#startOperator} starts it, with these options. */
    static BenchedOperator hostJvm(RealCluster cluster, String name, Map<String, String> env, List<String> jvm)
            throws IOException {
        Instant at = Instant.now();
        JavaApp app = cluster.startOperator(name, env, jvm);
        return new HostJvm(name, app, at);
    }

    /** The environment the operator's Deployment gives it, in the benchmark's namespace, with the benchmark's interval. */
    static Map<String, String> operatorEnv(String podName) {
        return Map.of("KUBERNETES_NAMESPACE", RealCluster.NAMESPACE, "POD_NAMESPACE", RealCluster.NAMESPACE,
                "POD_NAME", podName, "QUARKUS_KUBERNETES_CLIENT_NAMESPACE", RealCluster.NAMESPACE,
                "RECONCILE_INTERVAL", ScaleBenchmark.INTERVAL);
    }

    // ---------------------------------------------------------------------------------------------------------------

    /** Where the Go Joulie runs: its namespace and ServiceAccount, distinct from Joulie's. */
    static final String GO_NAMESPACE = "joulie-go";
    static final String GO_SA = "joulie-operator";

    /**
     * Builds the Go Joulie's operator from {@code checkout} (a clone of joulie-k8s/Joulie; never committed here) into
     * {@code ~/.cache/joulie/gojoulie/}, once per commit: {@code CGO_ENABLED=0 go build ./cmd/operator}, as its
     * Dockerfile does. Returns the binary and the version it was built from.
     */
    static GoBuild buildGoJoulie(Path checkout) throws IOException, InterruptedException {
        if (!Files.isDirectory(checkout.resolve("cmd/operator"))) {
            throw new IllegalStateException(checkout + " is not a checkout of the Go Joulie (no cmd/operator)");
        }
        String commit = run(checkout, List.of("git", "rev-parse", "--short=12", "HEAD"), Map.of()).strip();
        String version = run(checkout, List.of("git", "describe", "--tags", "--always"), Map.of()).strip();
        Path binary = Path.of(System.getProperty("user.home"), ".cache/joulie/gojoulie", "operator-" + commit);
        if (!Files.isExecutable(binary)) {
            Files.createDirectories(binary.getParent());
            Path tmp = binary.resolveSibling(binary.getFileName() + ".tmp");
            run(checkout, List.of("go", "build", "-o", tmp.toString(), "./cmd/operator"), Map.of("CGO_ENABLED", "0"));
            Files.move(tmp, binary, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        return new GoBuild(binary, version + " (" + commit + ")", checkout);
    }

    record GoBuild(Path binary, String version, Path checkout) {
    }

    /**
     * The Go Joulie's install on this cluster, beside Joulie's: its NodeTwin CRD (its NodeHardware CRD has the name of
     * Joulie's, which stays: Joulie's CRD ownership check would refuse a replaced one, and the Go operator only lists
     * it), a namespace and ServiceAccount, and the ClusterRole its chart (v0.1.1, {@code templates/rbac.yaml}) grants
     * its operator.
     */
    static void installGoJoulie(RealCluster cluster, GoBuild go) {
        cluster.kubectl(null, "apply", "-f", go.checkout().resolve("config/crd/bases/joulie.io_nodetwins.yaml").toString()).ok();
        cluster.kubectl("""
                apiVersion: v1
                kind: Namespace
                metadata: {name: %1$s}
                ---
                apiVersion: v1
                kind: ServiceAccount
                metadata: {name: %2$s, namespace: %1$s}
                ---
                apiVersion: rbac.authorization.k8s.io/v1
                kind: ClusterRole
                metadata: {name: go-joulie-operator}
                rules:
                - {apiGroups: [""], resources: [nodes], verbs: [get, list, watch, update, patch]}
                - {apiGroups: [""], resources: [pods], verbs: [get, list, watch]}
                - {apiGroups: [joulie.io], resources: [nodetwins], verbs: [get, list, watch, create, update, patch]}
                - {apiGroups: [joulie.io], resources: [nodetwins/status], verbs: [update, patch]}
                - {apiGroups: [joulie.io], resources: [nodehardwares], verbs: [get, list, watch]}
                ---
                apiVersion: rbac.authorization.k8s.io/v1
                kind: ClusterRoleBinding
                metadata: {name: go-joulie-operator}
                roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: go-joulie-operator}
                subjects: [{kind: ServiceAccount, name: %2$s, namespace: %1$s}]
                """.formatted(GO_NAMESPACE, GO_SA), "apply", "-f", "-").ok();
        cluster.admin.apiextensions().v1().customResourceDefinitions().withName("nodetwins.joulie.io")
                .waitUntilCondition(c -> c != null && c.getStatus() != null && c.getStatus().getConditions().stream()
                        .anyMatch(x -> x.getType().equals("Established") && x.getStatus().equals("True")),
                        1, java.util.concurrent.TimeUnit.MINUTES);
    }

    /**
     * The Go Joulie with its chart's default environment and the benchmark's four policy settings (static partition at
     * half performance, the interval, Joulie's node selector), as the review of 2026-11-27 ran it.
     */
    static BenchedOperator goJoulie(RealCluster cluster, String name, GoBuild go) throws IOException {
        Path secrets = Files.createDirectories(cluster.controlPlane.workDir().resolve(name + "-serviceaccount"));
        Files.writeString(secrets.resolve("token"), cluster.kubectl(null, "create", "token", GO_SA, "-n", GO_NAMESPACE,
                "--duration=24h").ok().output().strip());
        Files.writeString(secrets.resolve("ca.crt"), servingCertificate(cluster.controlPlane.server()));
        Files.writeString(secrets.resolve("namespace"), GO_NAMESPACE);
        URI server = URI.create(cluster.controlPlane.server());
        MemoryCgroup cgroup = MemoryCgroup.create("scale-" + name, MEMORY_LIMIT);
        // client-go's in-cluster configuration reads /var/run/secrets/kubernetes.io/serviceaccount: a tmpfs on /run in a
        // mount namespace of its own holds them there for this process only
        ProcessBuilder pb = new ProcessBuilder(cgroup.wrap(List.of("unshare", "--mount", "--propagation", "private",
                "sh", "-c", "mount -t tmpfs joulie-go /run && mkdir -p /run/secrets/kubernetes.io/serviceaccount"
                        + " && cp \"$1\"/* /run/secrets/kubernetes.io/serviceaccount/ && exec \"$0\"",
                go.binary().toString(), secrets.toString())));
        Map<String, String> env = pb.environment();
        env.putAll(Map.of("KUBERNETES_SERVICE_HOST", server.getHost(), "KUBERNETES_SERVICE_PORT",
                Integer.toString(server.getPort()), "POLICY_TYPE", "static_partition", "STATIC_HP_FRAC", "0.5",
                "RECONCILE_INTERVAL", ScaleBenchmark.INTERVAL, "NODE_SELECTOR", "joulie.io/managed=true",
                "METRICS_ADDR", "127.0.0.1:" + JavaApp.freePort()));
        // its chart's values.yaml defaults
        env.putAll(Map.of("PERFORMANCE_CAP_WATTS", "5000", "ECO_CAP_WATTS", "120", "CPU_PERFORMANCE_CAP_PCT_OF_MAX", "100",
                "CPU_ECO_CAP_PCT_OF_MAX", "60", "GPU_PERFORMANCE_CAP_PCT_OF_MAX", "100", "GPU_ECO_CAP_PCT_OF_MAX", "60"));
        Path log = cluster.controlPlane.workDir().resolve(name + ".log");
        Instant at = Instant.now();
        Process p = pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new Go(name, p, at, cgroup, log);
    }

    /** The API server's own (self-signed) serving certificate, PEM: what a ServiceAccount's ca.crt holds in a cluster. */
    static String servingCertificate(String server) throws IOException {
        URI uri = URI.create(server);
        try {
            javax.net.ssl.SSLContext ssl = javax.net.ssl.SSLContext.getInstance("TLS");
            ssl.init(null, new javax.net.ssl.TrustManager[] {new javax.net.ssl.X509TrustManager() {
                @Override
                public void checkClientTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public void checkServerTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public X509Certificate[] getAcceptedIssuers() {
                    return new X509Certificate[0];
                }
            }}, null);
            try (javax.net.ssl.SSLSocket s = (javax.net.ssl.SSLSocket) ssl.getSocketFactory().createSocket(uri.getHost(), uri.getPort())) {
                s.startHandshake();
                X509Certificate cert = (X509Certificate) s.getSession().getPeerCertificates()[0];
                return "-----BEGIN CERTIFICATE-----\n"
                        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(cert.getEncoded())
                        + "\n-----END CERTIFICATE-----\n";
            }
        } catch (java.security.GeneralSecurityException e) {
            throw new IOException("cannot read the API server's certificate", e);
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    /** An operator process started by a launcher of its own in a memory cgroup of its own, logging to a file. */
    abstract static sealed class Contained extends BenchedOperator {
        private final ContainedProcess process;

        Contained(String label, ContainedProcess process, Instant started) {
            super(label, process.pid(), started);
            this.process = process;
        }

        @Override
        String logTail() {
            return process.tail(30);
        }

        @Override
        public void close() {
            process.close();
        }
    }

    static final class Image extends Contained {
        private final int management;

        Image(String label, ContainedProcess process, Instant started, int management) {
            super(label, process, started);
            this.management = management;
        }

        @Override
        String metrics() {
            try {
                return PrometheusText.scrape(management);
            } catch (RuntimeException | AssertionError notYet) {
                return null;
            }
        }
    }

    static final class HostJvm extends BenchedOperator {
        private final JavaApp app;

        HostJvm(String label, JavaApp app, Instant started) {
            super(label, app.process().pid(), started);
            this.app = app;
        }

        @Override
        String metrics() {
            return app.get("/q/metrics");
        }

        @Override
        String logTail() {
            return app.tail(30);
        }

        @Override
        public void close() {
            app.close();
        }
    }

    static final class Go extends Contained {
        Go(String label, Process process, Instant started, MemoryCgroup cgroup, Path log) {
            super(label, new ContainedProcess(process.pid(), process, cgroup, log), started);
        }

        /** None read: its ticks are counted from the audit log, one LIST of Nodes each. */
        @Override
        String metrics() {
            return null;
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    private static String run(Path dir, List<String> command, Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed in " + dir + ":\n" + out);
        }
        return out;
    }

    private static long clockTicks() {
        try {
            return Long.parseLong(run(Path.of("/"), List.of("getconf", "CLK_TCK"), Map.of()).strip());
        } catch (IOException | RuntimeException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}
