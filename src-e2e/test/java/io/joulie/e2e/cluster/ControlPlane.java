package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.joulie.harness.JavaApp;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

import static io.joulie.harness.JavaApp.freePort;

/**
 * A real Kubernetes control plane on loopback, from the binaries {@code hack/control-plane/build.sh} builds:
 * etcd, kube-apiserver (RBAC and Node authorization, the default admission plugins, ServiceAccount token
 * issuing, a JSON audit log of every request), kube-controller-manager (garbage collector, DaemonSet,
 * disruption and the other default controllers, each with its own ServiceAccount), kube-scheduler, and kwok
 * (simulated kubelets for the Nodes annotated {@value #KWOK_ANNOTATION}{@code =fake}: they turn Ready and their
 * bound Pods Running). Everything lives in one work directory; {@link #close()} stops every process it started.
 */
public final class ControlPlane implements AutoCloseable {
    public static final String KWOK_ANNOTATION = "kwok.x-k8s.io/node";
    static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final Path bin;
    private final Path work;
    private final Tuning tuning;
    private final String adminToken = token();
    /** The real node's kubelet: user system:node:<name> in group system:nodes (the Node authorizer, NodeRestriction). */
    private final String realNodeToken = token();
    private final List<Process> processes = new ArrayList<>();
    private final Map<Process, String> names = new ConcurrentHashMap<>();
    private final Thread shutdownHook = new Thread(this::stopAll, "control-plane-stop");
    private int apiPort;
    /** The kube-scheduler's credentials, for a second scheduler ({@link #startScheduler}). */
    private Path schedulerKubeconfig;
    /** The Kubernetes minor of the binaries (the compatibility matrix runs more than one; docs/install.md). */
    private int minor;

    private ControlPlane(Path bin, Path work, Tuning tuning) {
        this.bin = bin;
        this.work = work;
        this.tuning = tuning;
    }

    /**
     * How the simulated kubelets load the API server. {@link #SUITE}: kwok renews each Node's Lease every 10 s (a 40 s
     * lease, as a kubelet does) and the node lifecycle controller watches them. {@link #SCALE}, for thousands of Nodes on
     * one small machine: 5,000 kubelets renewing every 10 s would cost the shared API server 500 writes a second, which
     * is load on the machine, not on the operator being measured; so Leases last an hour (renewed every 15 min), the
     * node lifecycle controller (which would then mark the Nodes NotReady) is off, and kwok runs more stages at once.
     */
    public record Tuning(int nodeLeaseSeconds, boolean nodeLifecycle, int kwokParallelism) {
        public static final Tuning SUITE = new Tuning(40, true, 4);
        public static final Tuning SCALE = new Tuning(3600, false, 16);
    }

    /** Starts the whole control plane and waits until the API server is ready and the default ServiceAccount exists. */
    public static ControlPlane start(Path bin, Path work) throws IOException, InterruptedException {
        return start(bin, work, Tuning.SUITE);
    }

    /** {@link #start(Path, Path)} with this tuning. */
    public static ControlPlane start(Path bin, Path work, Tuning tuning) throws IOException, InterruptedException {
        ControlPlane cp = new ControlPlane(bin, work, tuning);
        Runtime.getRuntime().addShutdownHook(cp.shutdownHook);
        try {
            cp.boot();
        } catch (java.security.GeneralSecurityException e) {
            cp.close();
            throw new IllegalStateException("no RSA key generator", e);
        } catch (IOException | InterruptedException | RuntimeException e) {
            cp.close();
            throw e;
        }
        return cp;
    }

    private void boot() throws IOException, InterruptedException, java.security.GeneralSecurityException {
        Files.createDirectories(work.resolve("pki"));
        minor = minorOf(bin.resolve("kube-apiserver"));
        Instant begin = Instant.now();
        // etcd: one member, on loopback, fsync off (a test cluster; the data is thrown away)
        int etcdClient = freePort();
        int etcdPeer = freePort();
        launch("etcd", List.of(bin.resolve("etcd").toString(), "--name=joulie-e2e", "--data-dir=" + work.resolve("etcd"),
                "--listen-client-urls=http://127.0.0.1:" + etcdClient, "--advertise-client-urls=http://127.0.0.1:" + etcdClient,
                "--listen-peer-urls=http://127.0.0.1:" + etcdPeer, "--initial-advertise-peer-urls=http://127.0.0.1:" + etcdPeer,
                "--initial-cluster=joulie-e2e=http://127.0.0.1:" + etcdPeer, "--listen-metrics-urls=http://127.0.0.1:" + freePort(),
                "--unsafe-no-fsync=true", "--log-level=warn"));
        awaitHttp("etcd", URI.create("http://127.0.0.1:" + etcdClient + "/health"), null);

        // ServiceAccount token signing key, static tokens for the admin and the control-plane components, audit policy
        KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
        rsa.initialize(2048);
        KeyPair sa = rsa.generateKeyPair();
        Path saKey = write("pki/sa.key", pem("PRIVATE KEY", sa.getPrivate().getEncoded()));
        Path saPub = write("pki/sa.pub", pem("PUBLIC KEY", sa.getPublic().getEncoded()));
        String kcmToken = token();
        String schedulerToken = token();
        String kwokToken = token();
        Path tokens = write("pki/tokens.csv", String.join("\n",
                adminToken + ",admin,admin,system:masters",
                kcmToken + ",system:kube-controller-manager,kcm",
                schedulerToken + ",system:kube-scheduler,scheduler",
                kwokToken + ",kwok,kwok,system:masters",
                realNodeToken + ",system:node:" + RealNode.NAME + ",kubelet-" + RealNode.NAME + ",system:nodes") + "\n");
        // every request, but those of the simulated kubelets (Lease renewals and Pod status, thousands at scale)
        Path auditPolicy = write("audit-policy.yaml", """
                apiVersion: audit.k8s.io/v1
                kind: Policy
                omitStages: ["RequestReceived", "ResponseStarted"]
                rules:
                - level: None
                  users: ["kwok"]
                - level: Metadata
                """);
        apiPort = freePort();
        kubeconfig("admin", adminToken);
        launch("kube-apiserver", List.of(bin.resolve("kube-apiserver").toString(),
                "--etcd-servers=http://127.0.0.1:" + etcdClient,
                "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port=" + apiPort,
                "--cert-dir=" + work.resolve("pki"),
                "--authorization-mode=Node,RBAC",
                "--token-auth-file=" + tokens,
                "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
                "--service-account-key-file=" + saPub, "--service-account-signing-key-file=" + saKey,
                "--service-cluster-ip-range=10.96.0.0/16",
                "--enable-admission-plugins=NodeRestriction",
                // MutatingAdmissionPolicy (alpha in 1.32 and 1.33, beta from 1.34, off by default in both): the real
                // node's network shim (RealNode)
                "--feature-gates=MutatingAdmissionPolicy=true", "--runtime-config=" + mutatingPolicyApi() + "=true",
                // logs and exec of the real node's Pods: the kubelet listens on loopback
                "--kubelet-preferred-address-types=InternalIP,Hostname",
                "--audit-policy-file=" + auditPolicy, "--audit-log-path=" + auditLog(), "--audit-log-format=json",
                "--audit-log-maxsize=0", "--audit-log-mode=blocking",
                "--profiling=false", "--v=1"));
        awaitHttp("kube-apiserver", URI.create(server() + "/readyz"), adminToken);

        Path kcm = kubeconfig("kube-controller-manager", kcmToken);
        launch("kube-controller-manager", List.of(bin.resolve("kube-controller-manager").toString(),
                "--kubeconfig=" + kcm, "--authentication-kubeconfig=" + kcm, "--authorization-kubeconfig=" + kcm,
                "--leader-elect=false", "--use-service-account-credentials=true",
                "--service-account-private-key-file=" + saKey, "--root-ca-file=" + work.resolve("pki/apiserver.crt"),
                "--bind-address=127.0.0.1", "--secure-port=" + freePort(), "--profiling=false",
                "--controllers=*,-nodeipam,-service-lb-controller,-cloud-node-lifecycle-controller"
                        + (tuning.nodeLifecycle() ? "" : ",-node-lifecycle-controller"), "--v=1"));
        Path scheduler = kubeconfig("kube-scheduler", schedulerToken);
        schedulerKubeconfig = scheduler;
        launch("kube-scheduler", List.of(bin.resolve("kube-scheduler").toString(),
                "--kubeconfig=" + scheduler, "--authentication-kubeconfig=" + scheduler, "--authorization-kubeconfig=" + scheduler,
                "--leader-elect=false", "--bind-address=127.0.0.1", "--secure-port=" + freePort(), "--profiling=false", "--v=1"));
        Path stages = work.resolve("kwok-stages.yaml");
        try (var in = ControlPlane.class.getResourceAsStream("/kwok-stages.yaml")) {
            Files.write(stages, java.util.Objects.requireNonNull(in, "kwok-stages.yaml on the test class path").readAllBytes());
        }
        Path kwokConfig = write("kwok-config.yaml", """
                apiVersion: config.kwok.x-k8s.io/v1alpha1
                kind: KwokConfiguration
                options:
                  podPlayStageParallelism: %d
                  nodePlayStageParallelism: %d
                  nodeLeaseParallelism: %d
                """.formatted(tuning.kwokParallelism(), tuning.kwokParallelism(), tuning.kwokParallelism()));
        launch("kwok", List.of(bin.resolve("kwok").toString(), "--kubeconfig=" + kubeconfig("kwok", kwokToken),
                "--config=" + kwokConfig, "--config=" + stages,
                "--node-lease-duration-seconds=" + tuning.nodeLeaseSeconds(),
                "--manage-all-nodes=false", "--manage-nodes-with-annotation-selector=" + KWOK_ANNOTATION + "=fake",
                "--cidr=10.0.0.1/16", "--node-ip=10.0.0.1", "--server-address=127.0.0.1:" + freePort()));

        // the ServiceAccount controller is up when it has made the default namespace's ServiceAccount
        try (KubernetesClient c = adminClient()) {
            long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
            while (c.serviceAccounts().inNamespace("default").withName("default").get() == null) {
                checkAlive();
                if (System.nanoTime() > deadline) {
                    throw new IOException("kube-controller-manager made no ServiceAccount in " + START_TIMEOUT + "; see " + work);
                }
                Thread.sleep(200);
            }
        }
        System.out.printf("control plane up in %d ms (API server %s, work dir %s)%n",
                Duration.between(begin, Instant.now()).toMillis(), server(), work);
    }

    public String server() {
        return "https://127.0.0.1:" + apiPort;
    }

    public Path workDir() {
        return work;
    }

    /**
     * Starts a second kube-scheduler, as the control plane's own (same credentials), with this configuration file
     * (which names its kubeconfig: {@link #schedulerKubeconfig()}); it runs until the control plane stops. Its log is
     * {@code <name>.log} in the work directory.
     */
    public Path startScheduler(String name, Path config) throws IOException {
        launch(name, List.of(bin.resolve("kube-scheduler").toString(), "--config=" + config,
                "--authentication-kubeconfig=" + schedulerKubeconfig, "--authorization-kubeconfig=" + schedulerKubeconfig,
                "--bind-address=127.0.0.1", "--secure-port=" + freePort(), "--profiling=false", "--v=1"));
        return work.resolve(name + ".log");
    }

    /** The kubeconfig the control plane's kube-scheduler uses. */
    public Path schedulerKubeconfig() {
        return schedulerKubeconfig;
    }

    /**
     * The API group version that serves MutatingAdmissionPolicy on this control plane: {@code v1alpha1} before
     * Kubernetes 1.34, {@code v1beta1} from it (the same fields in both, as far as the suite uses them).
     */
    public String mutatingPolicyApi() {
        return "admissionregistration.k8s.io/" + (minor < 34 ? "v1alpha1" : "v1beta1");
    }

    /** The minor version a Kubernetes binary reports ({@code --version} prints {@code Kubernetes v1.32.13}). */
    static int minorOf(Path binary) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
        p.waitFor();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("Kubernetes v1\\.(\\d+)\\.").matcher(out);
        if (!m.find()) {
            throw new IOException(binary + " --version printed no Kubernetes version: " + out);
        }
        return Integer.parseInt(m.group(1));
    }

    /** A binary of the control plane's build ({@code hack/control-plane/build.sh}), e.g. the kubelet. */
    public Path binary(String name) {
        return bin.resolve(name);
    }

    /** The static bearer token of this node's kubelet; only {@link RealNode#NAME} has one. */
    String nodeToken(String node) {
        if (!node.equals(RealNode.NAME)) {
            throw new IllegalArgumentException("no kubelet token for " + node + ": only " + RealNode.NAME + " is a real node");
        }
        return realNodeToken;
    }

    public Path auditLog() {
        return work.resolve("audit.log");
    }

    public Path adminKubeconfig() {
        return work.resolve("admin.kubeconfig");
    }

    /** A kubeconfig for the API server with this bearer token (the API server's certificate is self-signed). */
    public Path kubeconfig(String name, String token) throws IOException {
        return write(name + ".kubeconfig", """
                apiVersion: v1
                kind: Config
                clusters:
                - name: e2e
                  cluster:
                    server: %s
                    insecure-skip-tls-verify: true
                users:
                - name: %s
                  user:
                    token: %s
                contexts:
                - name: e2e
                  context:
                    cluster: e2e
                    user: %s
                current-context: e2e
                """.formatted(server(), name, token, name));
    }

    public KubernetesClient adminClient() {
        return client(adminToken);
    }

    public KubernetesClient client(String token) {
        Config config = Config.empty();
        config.setMasterUrl(server());
        config.setOauthToken(token);
        config.setTrustCerts(true);
        config.setDisableHostnameVerification(true);
        config.setNamespace("default");
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    private void launch(String name, List<String> command) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(work.resolve(name + ".log").toFile());
        Process p = pb.start();
        synchronized (processes) {
            processes.add(p);
        }
        names.put(p, name);
    }

    private void checkAlive() throws IOException {
        synchronized (processes) {
            for (Process p : processes) {
                if (!p.isAlive()) {
                    String name = names.get(p);
                    throw new IOException(name + " exited with " + p.exitValue() + ": " + tail(work.resolve(name + ".log")));
                }
            }
        }
    }

    static String tail(Path log) {
        return JavaApp.tail(log, 15);
    }

    private void awaitHttp(String what, URI uri, String token) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().sslContext(trustAll()).connectTimeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            checkAlive();
            try {
                HttpRequest.Builder req = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5));
                if (token != null) {
                    req.header("Authorization", "Bearer " + token);
                }
                HttpResponse<String> r = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
                last = "HTTP " + r.statusCode() + ": " + r.body();
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(200);
        }
        throw new IOException(what + " not ready at " + uri + " within " + START_TIMEOUT + " (" + last + "); see " + work);
    }

    static SSLContext trustAll() {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, new TrustManager[] {new X509TrustManager() {
                @Override
                public void checkClientTrusted(java.security.cert.X509Certificate[] chain, String authType) {
                }

                @Override
                public void checkServerTrusted(java.security.cert.X509Certificate[] chain, String authType) {
                }

                @Override
                public java.security.cert.X509Certificate[] getAcceptedIssuers() {
                    return new java.security.cert.X509Certificate[0];
                }
            }}, new SecureRandom());
            return ctx;
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private Path write(String relative, String content) throws IOException {
        Path file = work.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
        return file;
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static String token() {
        byte[] b = new byte[24];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }


    private void stopAll() {
        List<Process> all;
        synchronized (processes) {
            all = new ArrayList<>(processes);
            processes.clear();
        }
        // reverse order: the components before the API server, the API server before etcd
        for (int i = all.size() - 1; i >= 0; i--) {
            all.get(i).destroy();
        }
        for (Process p : all) {
            try {
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        stopAll();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }
}
