package io.joulie.testkit;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The training run of an application image's ahead-of-time cache (JEP 483/514/515, decision 177), run at image build
 * time by the application module (pom.xml: execution {@code aot-training}) after Jib built the image:
 * {@code hack/images/chroot-run.sh} runs the image's own entrypoint in its unpacked file tree (its runtime, its jars at
 * their paths and times, its JVM options) with {@code -XX:AOTCacheOutput}, against a mock API server this class seeds;
 * when the application has done what it does when it starts in a cluster, it gets SIGTERM, the JVM writes the cache as
 * it exits, and {@code hack/images/add-layer.sh} adds it to the image where the entrypoint's {@code -XX:AOTCache} reads it.
 *
 * <ul>
 *   <li>{@code operator}: the CRDs and the sample {@code Joulie} of {@code kubernetes/}, {@value #NODES} managed nodes with
 *   {@value #PODS_PER_NODE} Pods each (one node in ten with a performance-only Pod); done when every node has its
 *   NodePowerProfile with a state and its power-profile label (informers synced, leadership, first plan and its
 *   writes).</li>
 *   <li>{@code agent}: one node and its eco NodePowerProfile, the agent in node mode on a {@link FakeHost} of two Intel
 *   packages; done when the agent has answered in the profile's status (hardware discovered, first cap applied).</li>
 * </ul>
 *
 * <pre>java -cp &lt;test class path&gt; io.joulie.testkit.AotTraining operator|agent &lt;image.tar&gt; &lt;repository root&gt;</pre>
 */
public final class AotTraining {
    static final int NODES = 40;
    static final int PODS_PER_NODE = 5;
    static final Duration TRAINING = Duration.ofMinutes(3);
    static final String NAMESPACE = "joulie-system";
    static final String AGENT_NODE = "training-node";
    /** Its profile's name, as JoulieApi.nodePowerProfileName gives it (this module depends on no application module). */
    static final String AGENT_PROFILE = "node-" + AGENT_NODE;
    static final ResourceDefinitionContext PROFILES = new ResourceDefinitionContext.Builder().withGroup("joulie.io")
            .withVersion("v1alpha1").withKind("NodePowerProfile").withPlural("nodepowerprofiles").withNamespaced(false).build();

    /** The mock server's log of every request, held so that its level stays. */
    private static final java.util.logging.Logger MOCK_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

    private AotTraining() {
    }

    /**
     * Ends the JVM either way: the mock server's threads are not daemons, and a main that returned or threw would leave
     * the build waiting for them.
     */
    public static void main(String[] args) {
        int status = 0;
        try {
            trainImage(args);
        } catch (Exception | Error e) {
            e.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }

    static void trainImage(String[] args) throws Exception {
        if (args.length != 3 || !List.of("operator", "agent").contains(args[0])) {
            System.err.println("usage: AotTraining operator|agent <image.tar> <repository root>");
            System.exit(2);
        }
        MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
        boolean operator = args[0].equals("operator");
        Path image = Path.of(args[1]).toAbsolutePath();
        if (!root()) {
            // a build without root (the README's demo needs none) still gets its image, without the cache: the JVM
            // says at start that it finds none ([error][aot] lines) and runs without it
            System.out.printf("WARNING: %s is built WITHOUT its ahead-of-time cache: the training run starts the image's"
                    + " entrypoint with unshare --root, which needs root (decision 177)%n", image.getFileName());
            return;
        }
        Path repo = Path.of(args[2]).toAbsolutePath();
        Path work = Files.createTempDirectory("joulie-aot-training");
        Path in = Files.createDirectories(work.resolve("in"));
        Path cache = work.resolve("app.aot");
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(), true);
        server.init();
        ServerSideApplyDispatcher.install(server);
        try (KubernetesClient admin = server.createClient()) {
            // by address: the image has no /etc/hosts to resolve localhost with
            java.net.URL url = admin.getMasterUrl();
            Files.writeString(in.resolve("kubeconfig"), kubeconfig("https://127.0.0.1:" + url.getPort()));
            Map<String, String> env = new HashMap<>(Map.of("KUBECONFIG", "/tmp/in/kubeconfig",
                    "QUARKUS_KUBERNETES_CLIENT_NAMESPACE", NAMESPACE, "QUARKUS_HTTP_PORT", "0", "QUARKUS_MANAGEMENT_PORT", "0"));
            Predicate<KubernetesClient> done;
            if (operator) {
                seedOperator(admin, repo);
                env.putAll(Map.of("KUBERNETES_NAMESPACE", NAMESPACE, "POD_NAMESPACE", NAMESPACE, "POD_NAME", "joulie-training",
                        "RECONCILE_INTERVAL", "5s", "SETTLE_TIME", "1s"));
                done = AotTraining::everyNodePlanned;
            } else {
                FakeHost host = FakeHost.intelNode(in.resolve("host"), 2, 250);
                seedAgent(admin, repo);
                env.putAll(Map.of("NODE_NAME", AGENT_NODE, "AGENT_RECONCILE_INTERVAL", "1s"));
                host.agentEnvironment().forEach((k, v) -> env.put(k, "/tmp/in/host/" + in.resolve("host").relativize(Path.of(v))));
                done = AotTraining::agentAnswered;
            }
            train(repo, image, in, cache, env, admin, done);
        } finally {
            server.destroy();
        }
        run(List.of("bash", repo.resolve("hack/images/add-layer.sh").toString(), image.toString(), cache.toString(),
                "/deployments/app.aot", "the ahead-of-time cache of a training run (io.joulie.testkit.AotTraining " + args[0] + ")"), Map.of());
        try (Stream<Path> files = Files.walk(work)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    static void train(Path repo, Path image, Path in, Path cache, Map<String, String> env, KubernetesClient admin,
                      Predicate<KubernetesClient> done) throws Exception {
        String runEnv = String.join(" ", env.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).sorted().toList());
        ProcessBuilder pb = new ProcessBuilder("bash", repo.resolve("hack/images/chroot-run.sh").toString(), image.toString())
                .inheritIO();
        pb.environment().putAll(Map.of("HOST_NET", "1", "COPY_IN", in.toString(), "AOT_OUTPUT", cache.toString(),
                "RUN_ENV", runEnv, "TIMEOUT", (TRAINING.toSeconds() + 60) + "s"));
        long start = System.nanoTime();
        Process script = pb.start();
        long deadline = start + TRAINING.toNanos();
        while (!safely(done, admin)) {
            if (!script.isAlive()) {
                throw new IllegalStateException("the application of " + image + " exited (status " + script.exitValue()
                        + ") before its training was done");
            }
            if (System.nanoTime() > deadline) {
                script.descendants().forEach(ProcessHandle::destroyForcibly);
                throw new IllegalStateException("the training run of " + image + " did not finish within " + TRAINING);
            }
            Thread.sleep(250);
        }
        System.out.printf(Locale.ROOT, "training of %s done after %.1f s; stopping it%n", image.getFileName(),
                (System.nanoTime() - start) / 1e9);
        // SIGTERM to the JVM (the image's PID 1 in its namespace): it shuts down and writes the cache as it exits
        Optional<ProcessHandle> jvm = script.descendants()
                .filter(p -> p.info().command().orElse("").endsWith("/bin/java")
                        && p.info().commandLine().orElse("").contains("-XX:AOTCacheOutput=")).findFirst();
        jvm.orElseThrow(() -> new IllegalStateException("no JVM with -XX:AOTCacheOutput under " + script.pid())).destroy();
        int status = script.waitFor();
        // 143: the SIGTERM; 0: a JVM whose shutdown ended with exit status 0
        if ((status != 0 && status != 143) || !Files.isRegularFile(cache) || Files.size(cache) == 0) {
            throw new IllegalStateException("the training run of " + image + " ended with status " + status
                    + " and no AOT cache");
        }
    }

    /** Whether this process runs as root (the real user id of /proc/self/status). */
    static boolean root() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("Uid:"))
                .map(l -> l.split("\\s+")[1]).findFirst().orElse("").equals("0");
    }

    static boolean safely(Predicate<KubernetesClient> done, KubernetesClient admin) {
        try {
            return done.test(admin);
        } catch (RuntimeException notYet) {
            return false;
        }
    }

    static void seedOperator(KubernetesClient admin, Path repo) throws IOException {
        seedCrds(admin, repo);
        admin.namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata()
                .withName(NAMESPACE).endMetadata().build()).create();
        create(admin, repo.resolve("kubernetes/sample/joulie.yml"));
        for (int n = 0; n < NODES; n++) {
            String node = String.format(Locale.ROOT, "training-%02d", n);
            admin.nodes().resource(new io.fabric8.kubernetes.api.model.NodeBuilder().withNewMetadata().withName(node)
                    .addToLabels("joulie.io/managed", "true").addToLabels("kubernetes.io/hostname", node).endMetadata()
                    .withNewStatus().addToCapacity("cpu", new io.fabric8.kubernetes.api.model.Quantity("32"))
                    .addToAllocatable("cpu", new io.fabric8.kubernetes.api.model.Quantity("32")).addNewCondition()
                    .withType("Ready").withStatus("True").endCondition().endStatus().build()).create();
            for (int p = 0; p < PODS_PER_NODE; p++) {
                var pod = new io.fabric8.kubernetes.api.model.PodBuilder().withNewMetadata().withName(node + "-" + p)
                        .withNamespace("default").endMetadata().withNewSpec().withNodeName(node).addNewContainer()
                        .withName("work").withImage("registry.invalid/work:1").endContainer().endSpec().withNewStatus()
                        .withPhase("Running").endStatus();
                if (p == 0 && n % 10 == 0) {
                    pod.editSpec().addToNodeSelector("joulie.io/power-profile", "performance").endSpec();
                }
                admin.pods().resource(pod.build()).create();
            }
        }
    }

    /** The CRDs of kubernetes/, from which the mock server learns the kinds. */
    static void seedCrds(KubernetesClient admin, Path repo) throws IOException {
        List<Path> crds;
        try (Stream<Path> files = Files.list(repo.resolve("kubernetes"))) {
            crds = files.filter(p -> p.getFileName().toString().startsWith("10-crd-")).sorted().toList();
        }
        for (Path crd : crds) {
            create(admin, crd);
        }
    }

    static boolean everyNodePlanned(KubernetesClient admin) {
        List<GenericKubernetesResource> profiles = admin.genericKubernetesResources(PROFILES).list().getItems();
        long stated = profiles.stream().filter(p -> p.get("status", "state") != null).count();
        long labelled = admin.nodes().withLabel("joulie.io/power-profile").list().getItems().size();
        return stated >= NODES && labelled >= NODES;
    }

    static void seedAgent(KubernetesClient admin, Path repo) throws IOException {
        seedCrds(admin, repo);
        admin.nodes().resource(new io.fabric8.kubernetes.api.model.NodeBuilder().withNewMetadata().withName(AGENT_NODE)
                .addToLabels("joulie.io/managed", "true").endMetadata().build()).create();
        GenericKubernetesResource npp = new GenericKubernetesResource();
        npp.setApiVersion("joulie.io/v1alpha1");
        npp.setKind("NodePowerProfile");
        npp.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName(AGENT_PROFILE).build());
        npp.setAdditionalProperty("spec", Map.of("nodeName", AGENT_NODE, "profile", "eco",
                "cpu", Map.of("packagePowerCapPercent", 60)));
        admin.genericKubernetesResources(PROFILES).resource(npp).create();
    }

    static boolean agentAnswered(KubernetesClient admin) {
        GenericKubernetesResource npp = admin.genericKubernetesResources(PROFILES).withName(AGENT_PROFILE).get();
        return npp != null && npp.get("status", "applied", "cpu") != null;
    }

    static void create(KubernetesClient admin, Path file) throws IOException {
        try (InputStream yaml = Files.newInputStream(file)) {
            for (HasMetadata item : admin.load(yaml).items()) {
                admin.resource(item).create();
            }
        }
    }

    static String kubeconfig(String server) {
        return """
                apiVersion: v1
                kind: Config
                clusters:
                - name: training
                  cluster:
                    server: %s
                    insecure-skip-tls-verify: true
                users:
                - name: training
                  user:
                    token: training
                contexts:
                - name: training
                  context:
                    cluster: training
                    user: training
                current-context: training
                """.formatted(server);
    }

    static void run(List<String> command, Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(command)).inheritIO();
        pb.environment().putAll(env);
        int status = pb.start().waitFor();
        if (status != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed with status " + status);
        }
    }
}
