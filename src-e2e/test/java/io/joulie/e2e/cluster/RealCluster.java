package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.VersionInfo;
import io.joulie.api.text.Durations;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.e2e.RepoFiles;
import io.joulie.harness.JavaApp;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The suite's one real control plane ({@link ControlPlane}), started at the first scenario that asks for it and
 * stopped when the whole suite is done, with what the scenarios share: Joulie installed as the README documents,
 * kwok nodes, the operator processes (each with a token of the operator's own ServiceAccount) and kubectl.
 *
 * <p>The binaries come from {@code hack/control-plane/build.sh} (built on first use, then cached), or from the
 * directory named by {@code -De2e.k8s.bin}. {@code -De2e.cluster=skip} skips these scenarios
 * explicitly (they are reported as skipped, with the reason); nothing else skips them.
 */
public final class RealCluster implements AutoCloseable {
    public static final String NAMESPACE = "joulie-system";
    public static final String OPERATOR_SA = "joulie-operator";
    public static final String AGENT_SA = "joulie-agent";
    /** The pool agent's ServiceAccount: the user's (docs/agent.md), bound to the install's joulie-agent-pool ClusterRole. */
    public static final String POOL_AGENT_SA = "joulie-pool-agent";
    static final Path REPO = Path.of(System.getProperty("repository.root", "..")).toAbsolutePath().normalize();
    /**
     * The Kubernetes minor the control planes run, {@code -De2e.kubernetes=1.32}: one of the compatibility matrix's
     * older rows ({@code hack/control-plane/k8s-<minor>.mod}, docs/install.md); empty for the newest (go.mod there).
     */
    public static final String KUBERNETES = System.getProperty("e2e.kubernetes", "");
    /** The README's install command, run as written from the repository root. */
    public static final String INSTALL_COMMAND = installCommand();

    public final ControlPlane controlPlane;
    public final KubernetesClient admin;
    private final Map<String, JavaApp> operators = new LinkedHashMap<>();
    private final List<JavaApp> started = new ArrayList<>();
    private Result install;
    /** The port the API server calls the operators' placement webhook on, and the operator listening there. */
    private final int webhookPort = JavaApp.freePort();
    private JavaApp webhookHolder;
    private boolean nodes;
    private JavaApp operator;
    /** The kwok nodes handed to Joulie for the whole suite (scenarios change the policy, not the node set). */
    /** The suite's planning interval, and its settle time (shorter, as the default is than the default interval). */
    public static final Duration INTERVAL = Duration.ofSeconds(2);
    public static final Duration SETTLE = Duration.ofSeconds(1);
    public static final List<String> MANAGED = List.of("kwok-0", "kwok-1", "kwok-2", "kwok-3", "kwok-4", "kwok-5");
    /** A kwok node Joulie does not manage. */
    public static final String UNMANAGED = "kwok-other";

    private RealCluster(ControlPlane controlPlane) {
        this.controlPlane = controlPlane;
        this.admin = controlPlane.adminClient();
    }

    /**
     * The JUnit extension: hands the suite's cluster to {@code @BeforeAll} and test methods, and reports every
     * scenario as skipped, with the reason, under {@code -De2e.cluster=skip}.
     */
    public static final class Extension implements ParameterResolver, ExecutionCondition {
        static final String SKIP = "real control plane scenarios skipped by -De2e.cluster=skip";

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext e) {
            return "skip".equals(System.getProperty("e2e.cluster")) ? ConditionEvaluationResult.disabled(SKIP)
                    : ConditionEvaluationResult.enabled("the real control plane is on");
        }

        @Override
        public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
            return p.getParameter().getType() == RealCluster.class;
        }

        @Override
        public Object resolveParameter(ParameterContext p, ExtensionContext e) {
            return e.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                    .getOrComputeIfAbsent(RealCluster.class, k -> RealCluster.start(), RealCluster.class);
        }
    }

    static RealCluster start() {
        return start(workDir("control-plane"));
    }

    /**
     * A control plane's work directory under {@code src-e2e/target}, in {@code k8s-<minor>/} when the suite runs an
     * older Kubernetes ({@link #KUBERNETES}), so that the two runs of one build keep their logs apart.
     */
    public static Path workDir(String name) {
        Path target = REPO.resolve("src-e2e/target");
        return (KUBERNETES.isEmpty() ? target : target.resolve("k8s-" + KUBERNETES)).resolve(name);
    }

    /** A fresh control plane in this (emptied) work directory. */
    public static RealCluster start(Path workDir) {
        return start(workDir, ControlPlane.Tuning.SUITE);
    }

    /** A fresh control plane with this tuning in this (emptied) work directory. */
    public static RealCluster start(Path workDir, ControlPlane.Tuning tuning) {
        try {
            Path bin = binaries();
            Path work = Files.createDirectories(workDir);
            try (var old = Files.list(work)) {
                for (Path p : old.toList()) {
                    deleteRecursively(p);
                }
            }
            RealCluster cluster = new RealCluster(ControlPlane.start(bin, work, tuning));
            VersionInfo version = cluster.admin.getKubernetesVersion();
            System.err.println("control plane in " + work + ": Kubernetes " + version.getGitVersion());
            if (!KUBERNETES.isEmpty() && !KUBERNETES.equals(version.getMajor() + "." + version.getMinor())) {
                cluster.close();
                throw new IllegalStateException("asked for Kubernetes " + KUBERNETES + ", the API server is " + version.getGitVersion());
            }
            return cluster;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The control plane's binaries: -De2e.k8s.bin, or what hack/control-plane/build.sh builds (or finds cached). */
    static Path binaries() throws IOException, InterruptedException {
        String given = System.getProperty("e2e.k8s.bin", "");
        if (!given.isBlank()) {
            return Path.of(given);
        }
        return RepoFiles.built(REPO, "hack/control-plane/build.sh", ": the real control plane is built from the Go module "
                + "proxy; pass -De2e.cluster=skip to skip these scenarios explicitly",
                KUBERNETES.isEmpty() ? new String[0] : new String[] {KUBERNETES});
    }

    private static String installCommand() {
        try {
            return RepoFiles.documented(REPO.resolve("README.md"), "kubectl apply -f kubernetes/");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Installs Joulie once, exactly with the README's command, as the cluster admin; the result of that one run. */
    public synchronized Result install() {
        if (install == null) {
            install = sh(INSTALL_COMMAND);
        }
        return install;
    }

    /**
     * Joulie installed, the managed kwok nodes present and one operator running (as its own ServiceAccount): what
     * every scenario after the install starts from. Scenarios that stop the operator start it again through this.
     */
    public synchronized JavaApp running() throws IOException {
        install().ok();
        if (!nodes) {
            kwokNodes(MANAGED, Map.of("joulie.io/managed", "true"));
            kwokNodes(List.of(UNMANAGED), Map.of());
            nodes = true;
        }
        if (operator == null || !operator.isAlive()) {
            operator = startOperator("joulie-operator-0", Map.of());
        }
        return operator;
    }

    /** Merges these fields into {@code spec.policy} of the {@code joulie} resource ({@code null} removes the policy). */
    public void policy(String json) {
        kubectl(null, "patch", "joulie", "joulie", "--type=merge", "-p", "{\"spec\":{\"policy\":" + json + "}}").ok();
    }

    /** The state (NodePowerProfile status) of every managed node, by node name; absent while unplanned. */
    public Map<String, String> states() {
        Map<String, String> states = new java.util.TreeMap<>();
        for (NodePowerProfile npp : admin.resources(NodePowerProfile.class).list().getItems()) {
            if (MANAGED.contains(npp.getSpec().nodeName()) && npp.getStatus() != null && npp.getStatus().state() != null) {
                states.put(npp.getSpec().nodeName(), npp.getStatus().state().name());
            }
        }
        return states;
    }

    /** A namespace for one scenario's Pods, with its default ServiceAccount made (Pods are refused before that). */
    public String namespace(String name) {
        kubectl(null, "create", "namespace", name).ok();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                .until(() -> admin.serviceAccounts().inNamespace(name).withName("default").get() != null);
        return name;
    }

    /** Runs a shell command from the repository root with the admin kubeconfig. */
    public Result sh(String command) {
        return sh(command, Map.of());
    }

    /** {@link #sh(String)} with more environment (e.g. a PATH that finds helm). */
    public Result sh(String command, Map<String, String> env) {
        return run(List.of("bash", "-c", command), null, env);
    }

    /** kubectl as the cluster admin, with stdin. */
    public Result kubectl(String stdin, String... args) {
        List<String> cmd = new ArrayList<>(List.of("kubectl"));
        cmd.addAll(List.of(args));
        return run(cmd, stdin, Map.of());
    }

    private Result run(List<String> command, String stdin, Map<String, String> env) {
        try {
            ProcessBuilder pb = new ProcessBuilder(command).directory(REPO.toFile()).redirectErrorStream(true);
            pb.environment().putAll(env);
            pb.environment().put("KUBECONFIG", controlPlane.adminKubeconfig().toString());
            Process p = pb.start();
            try (var in = p.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(command + " did not finish in 120 s: " + out);
            }
            return new Result(p.exitValue(), out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public record Result(int exit, String output) {
        public Result ok() {
            assertThat(exit).as("exit code; output:\n" + output).isZero();
            return this;
        }
    }

    /** A kubeconfig holding a fresh token of this ServiceAccount ({@code kubectl create token}, as an admin would). */
    public Path serviceAccountKubeconfig(String namespace, String serviceAccount) throws IOException {
        String token = kubectl(null, "create", "token", serviceAccount, "-n", namespace, "--duration=24h").ok().output().strip();
        return controlPlane.kubeconfig(namespace + "-" + serviceAccount, token);
    }

    static final Map<String, io.fabric8.kubernetes.api.model.Quantity> CAPACITY = Map.of(
            "cpu", new io.fabric8.kubernetes.api.model.Quantity("32"), "memory", new io.fabric8.kubernetes.api.model.Quantity("256Gi"),
            "pods", new io.fabric8.kubernetes.api.model.Quantity("110"));

    /** Nodes that kwok runs (Ready, their Pods Running), with these labels. */
    public void kwokNodes(List<String> names, Map<String, String> labels) {
        for (String name : names) {
            Node node = new NodeBuilder().withNewMetadata().withName(name).addToLabels(labels)
                    .addToLabels("kubernetes.io/hostname", name).addToLabels("type", "kwok")
                    .addToAnnotations(ControlPlane.KWOK_ANNOTATION, "fake").endMetadata()
                    .withNewSpec().endSpec()
                    .withNewStatus().addToCapacity(CAPACITY).addToAllocatable(CAPACITY).endStatus().build();
            admin.nodes().resource(node).create();
        }
    }

    /**
     * Starts an operator (the packaged jar) under this Pod name, as its own ServiceAccount; the environment adds
     * to or overrides the suite's defaults ({@link #INTERVAL} planning interval, {@link #SETTLE} settle time, leader
     * election on).
     */
    public synchronized JavaApp startOperator(String podName, Map<String, String> env) throws IOException {
        return startOperator(podName, env, JavaApp.SMALL_JVM);
    }

    /** {@link #startOperator(String, Map)} with these JVM options instead of the suite's. */
    public synchronized JavaApp startOperator(String podName, Map<String, String> env, List<String> jvmOptions)
            throws IOException {
        return startOperator(NAMESPACE, podName, env, jvmOptions);
    }

    /** The URL the suite's operators register their placement webhook at. */
    public String webhookUrl() {
        return "https://127.0.0.1:" + webhookPort + "/mutate-pods";
    }

    /** {@link #startOperator(String, Map, List)} for an installation in another namespace. */
    public synchronized JavaApp startOperator(String namespace, String podName, Map<String, String> env,
                                              List<String> jvmOptions) throws IOException {
        Path kubeconfig = serviceAccountKubeconfig(namespace, OPERATOR_SA);
        Map<String, String> all = new LinkedHashMap<>(Map.of("KUBECONFIG", kubeconfig.toString(),
                "KUBERNETES_NAMESPACE", namespace, "POD_NAMESPACE", namespace, "POD_NAME", podName,
                "QUARKUS_KUBERNETES_CLIENT_NAMESPACE", namespace, "RECONCILE_INTERVAL", Durations.format(INTERVAL),
                "SETTLE_TIME", Durations.format(SETTLE)));
        // The placement webhook: every replica registers the same URL (the replicas agree on the webhook configuration,
        // as in a cluster where the Service fronts them all); the replica started when no live one holds the port
        // listens on it, the others on ports nobody calls.
        boolean holds = webhookHolder == null || !webhookHolder.isAlive();
        all.put("JOULIE_WEBHOOK_URL", webhookUrl());
        all.put("JOULIE_WEBHOOK_PORT", String.valueOf(holds ? webhookPort : JavaApp.freePort()));
        all.putAll(env);
        JavaApp p = JavaApp.start(podName, JavaApp.Packaged.OPERATOR.jar(REPO), all,
                controlPlane.workDir(), jvmOptions);
        if (holds) {
            webhookHolder = p;
        }
        operators.put(podName, p);
        started.add(p);
        return p;
    }

    /**
     * A token of the agent's ServiceAccount bound to a Pod on {@code node}, as the DaemonSet's Pod gets it (projected):
     * Kubernetes puts the node's name in such a token, and the admission policy keeps its writes to that node. The Pod
     * ({@code joulie-agent-token-<node>}, bound to the node, run by kwok) lives as long as the suite: the token dies
     * with it.
     */
    public String nodeAgentToken(String node) {
        String pod = "joulie-agent-token-" + node;
        if (admin.pods().inNamespace(NAMESPACE).withName(pod).get() == null) {
            kubectl("""
                    apiVersion: v1
                    kind: Pod
                    metadata: {name: %s, namespace: %s, labels: {app.kubernetes.io/name: joulie-e2e-agent-token}}
                    spec:
                      nodeName: %s
                      serviceAccountName: %s
                      containers: [{name: token, image: registry.k8s.io/pause:3.10}]
                    """.formatted(pod, NAMESPACE, node, AGENT_SA), "apply", "-f", "-").ok();
        }
        return kubectl(null, "create", "token", AGENT_SA, "-n", NAMESPACE, "--duration=24h", "--bound-object-kind", "Pod",
                "--bound-object-name", pod).ok().output().strip();
    }

    /** The pool agent's ServiceAccount, made and bound to the install's {@code joulie-agent-pool} role as a user would. */
    public Path poolAgentKubeconfig() throws IOException {
        kubectl("""
                apiVersion: v1
                kind: ServiceAccount
                metadata: {name: %1$s, namespace: %2$s}
                ---
                apiVersion: rbac.authorization.k8s.io/v1
                kind: ClusterRoleBinding
                metadata: {name: %1$s}
                roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: joulie-agent-pool}
                subjects: [{kind: ServiceAccount, name: %1$s, namespace: %2$s}]
                """.formatted(POOL_AGENT_SA, NAMESPACE), "apply", "-f", "-").ok();
        return serviceAccountKubeconfig(NAMESPACE, POOL_AGENT_SA);
    }

    /**
     * Starts the packaged agent in node mode for {@code node}, as the DaemonSet runs it: with a token of its ServiceAccount
     * bound to a Pod on that node ({@link #nodeAgentToken}) and this environment; its log is {@code <name>.log}.
     */
    public JavaApp startNodeAgent(String name, String node, Map<String, String> env) throws IOException {
        return startNodeAgent(name, node, env, JavaApp.SMALL_JVM, UnaryOperator.identity());
    }

    /** A node-mode agent with these JVM options, its command line run by {@code launcher} (a memory cgroup). */
    public JavaApp startNodeAgent(String name, String node, Map<String, String> env, List<String> jvmOptions,
            UnaryOperator<List<String>> launcher) throws IOException {
        Map<String, String> all = new LinkedHashMap<>(Map.of("NODE_NAME", node));
        all.putAll(env);
        return startAgent(name, nodeAgentKubeconfig(node), all, jvmOptions, launcher);
    }

    /** A kubeconfig with a token of the agent's ServiceAccount bound to a Pod on {@code node} ({@link #nodeAgentToken}). */
    public Path nodeAgentKubeconfig(String node) throws IOException {
        return controlPlane.kubeconfig(NAMESPACE + "-" + AGENT_SA + "-" + node, nodeAgentToken(node));
    }

    /** Starts the packaged agent in pool mode as {@link #POOL_AGENT_SA}, with this environment. */
    public JavaApp startPoolAgent(String name, Map<String, String> env) throws IOException {
        Map<String, String> all = new LinkedHashMap<>(Map.of("AGENT_MODE", "pool"));
        all.putAll(env);
        return startAgent(name, poolAgentKubeconfig(), all, JavaApp.SMALL_JVM, UnaryOperator.identity());
    }

    private JavaApp startAgent(String name, Path kubeconfig, Map<String, String> env, List<String> jvmOptions,
            UnaryOperator<List<String>> launcher) throws IOException {
        Map<String, String> all = new LinkedHashMap<>(Map.of(
                "KUBECONFIG", kubeconfig.toString(),
                "QUARKUS_KUBERNETES_CLIENT_NAMESPACE", NAMESPACE));
        all.putAll(env);
        JavaApp p = JavaApp.start(name, JavaApp.Packaged.AGENT.jar(REPO), all, controlPlane.workDir(), jvmOptions, launcher);
        synchronized (this) {
            started.add(p);
        }
        return p;
    }

    /** Every line every operator and agent started in this suite logged. */
    public synchronized List<String> processLogLines() {
        return started.stream().flatMap(p -> p.logLines().stream()).toList();
    }

    public synchronized List<JavaApp> operators() {
        return List.copyOf(operators.values());
    }

    public synchronized void stopOperators() {
        operators.values().forEach(JavaApp::close);
        operators.clear();
    }

    public Path repo() {
        return REPO;
    }

    @Override
    public void close() {
        stopOperators();
        admin.close();
        controlPlane.close();
    }

    static void deleteRecursively(Path p) throws IOException {
        if (Files.isDirectory(p) && !Files.isSymbolicLink(p)) {
            try (var children = Files.list(p)) {
                for (Path c : children.toList()) {
                    deleteRecursively(c);
                }
            }
        }
        Files.deleteIfExists(p);
    }
}
