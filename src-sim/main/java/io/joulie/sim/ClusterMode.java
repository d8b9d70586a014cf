package io.joulie.sim;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.joulie.api.text.Durations;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec;
import io.joulie.planner.PlannerSetting;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Cluster mode: the twin on a Kubernetes API server (the embedded fabric8 mock server, crud mode) with the
 * real operator and the real agent (pool mode) as subprocesses, time-compressed by {@code speed}
 * (simulated seconds per wall second; the operator ticks every {@code sim.tickSeconds / speed}).
 *
 * <ul>
 *   <li>every simulated node is a Node labelled {@code joulie.io/managed=true} and {@code joulie.io/sim=true};</li>
 *   <li>every job is a Pod in namespace {@code sim} with its nodeSelector, created when it arrives, bound
 *       ({@code spec.nodeName}) when the twin's scheduler places it, deleted when it finishes;</li>
 *   <li>a cluster-scoped TelemetryProfile routes every node's CPU control and telemetry over HTTP to the
 *       twin: {@code POST /control/{node}} (the agent's {@code rapl.set_power_cap_watts} or
 *       {@code dvfs.set_throttle_pct}) sets the simulated cap or throttle, {@code GET /telemetry/{node}}
 *       answers {@code {"packagePowerWatts": …}};</li>
 *   <li>the scheduler places jobs by the {@code joulie.io/power-profile} labels the operator writes.</li>
 * </ul>
 */
public final class ClusterMode implements ExternalControl, AutoCloseable {
    static final String NAMESPACE = "sim";
    static final String SIM_LABEL = "joulie.io/sim";
    /** The mock server logs every request at INFO; kept referenced so the level sticks. */
    private static final java.util.logging.Logger MOCK_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

    static {
        MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    /**
     * @param repo     repository root (for the operator's and agent's runner jars)
     * @param baseline B or C: the operator's policy
     * @param speed    simulated seconds per wall second
     * @param logs     where the operator's and agent's logs go
     * @param out      where decisions are printed
     */
    /**
     * @param kubeconfig a kubeconfig file of the API server to run against, or null for the embedded one
     */
    public record Options(Path repo, Baseline baseline, double speed, Path logs, PrintStream out, Path kubeconfig) {
        public Options {
            SimConfig.require(baseline.policy() != null, "cluster mode runs Joulie: --baseline B or C");
            SimConfig.require(speed > 0, "--speed must be > 0");
            SimConfig.require(kubeconfig == null || Files.isRegularFile(kubeconfig),
                    "--kubeconfig " + kubeconfig + " is not a readable file");
        }

        public Options(Path repo, Baseline baseline, double speed, Path logs, PrintStream out) {
            this(repo, baseline, speed, logs, out, null);
        }
    }

    private final SimConfig config;
    private final Options options;
    private final List<String> nodeNames;
    private final ConcurrentLinkedQueue<Consumer<ExternalControl.Nodes>> updates = new ConcurrentLinkedQueue<>();
    private final Map<String, String> labels = new ConcurrentHashMap<>();
    private final Map<String, PowerState> printed = new ConcurrentHashMap<>();
    private final List<Process> processes = new ArrayList<>();
    private final ExecutorService writer = Executors.newSingleThreadExecutor(r -> new Thread(r, "sim-api-writer"));
    private volatile double simTime;
    private KubernetesMockServer server;
    /** Whether this run created its Nodes (and so removes them from a real cluster at the end). */
    private boolean createdNodes;
    private KubernetesClient client;
    private final AgentEndpoints endpoints;
    private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
    private long wallStart;

    public ClusterMode(SimConfig config, List<String> nodeNames, Options options) {
        // The operator's evictions are not mirrored into the twin (it watches no Pods): refuse rather than
        // report them as violations.
        SimConfig.require(config.planner().escalation() != io.joulie.planner.Escalation.EVICT,
                "cluster mode does not mirror the operator's evictions: use planner.escalation hold or force");
        this.config = config;
        this.options = options;
        this.nodeNames = List.copyOf(nodeNames);
        endpoints = new AgentEndpoints(nodeNames, config.node(), updates::add);
    }

    /** Starts the API server, the endpoints, the operator and the agent; returns once every node is planned and capped. */
    public void start(Duration readyTimeout) throws IOException {
        Path operatorJar = options.repo().resolve("src/target/quarkus-app/quarkus-run.jar");
        Path agentJar = options.repo().resolve("src-agent/target/quarkus-app/quarkus-run.jar");
        for (Path jar : List.of(operatorJar, agentJar)) {
            if (!Files.isRegularFile(jar)) {
                throw new IllegalArgumentException(jar + " is missing: build it first with "
                        + "./mvnw -pl src,src-agent,src-sim -am package -DskipTests (or pass --repo)");
            }
        }
        if (options.kubeconfig() == null) {
            server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), true);
            server.init();
            client = server.createClient();
        } else {
            client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(options.kubeconfig()))).build();
        }
        for (String crd : List.of("10-crd-nodepowerprofiles.joulie.io.yml", "10-crd-telemetryprofiles.joulie.io.yml")) {
            try (InputStream in = ClusterMode.class.getResourceAsStream("/crds/" + crd)) {
                if (in == null) {
                    throw new IllegalStateException("CRD " + crd + " is not packaged with the simulator");
                }
                var definition = client.apiextensions().v1().customResourceDefinitions().load(in).item();
                // A real cluster may have Joulie installed already: its CRDs are used as they are.
                if (client.resource(definition).get() == null) {
                    client.resource(definition).create();
                }
            }
        }
        for (String name : nodeNames) {
            Node existing = client.nodes().withName(name).get();
            if (existing != null) {
                throw new IllegalStateException("a Node named " + name + " already exists on " + client.getMasterUrl()
                        + "; the twin creates its own nodes and will not touch real ones (or an earlier run's: delete them)");
            }
        }
        if (server == null && client.namespaces().withName(NAMESPACE).get() == null) {
            client.namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata()
                    .withName(NAMESPACE).endMetadata().build()).create();
        }
        createdNodes = true;
        endpoints.start();
        watch();
        for (String name : nodeNames) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name)
                    .addToLabels("joulie.io/managed", "true").addToLabels(SIM_LABEL, "true").endMetadata()
                    .withNewSpec().endSpec().build()).create();
        }
        String base = "http://127.0.0.1:" + endpoints.port();
        TelemetryProfileSpec spec = new TelemetryProfileSpec(
                new TelemetryProfileSpec.Target(TelemetryProfileSpec.Scope.CLUSTER, null),
                new TelemetryProfileSpec.Sources(new TelemetryProfileSpec.Source(TelemetryProfileSpec.SourceType.HTTP,
                        new TelemetryProfileSpec.HttpEndpoint(base + "/telemetry/{node}", 5), null), null, null, null),
                new TelemetryProfileSpec.Controls(new TelemetryProfileSpec.CpuControl(TelemetryProfileSpec.ControlType.HTTP,
                        new TelemetryProfileSpec.CpuHttpControl(base + "/control/{node}", 5, TelemetryProfileSpec.CpuControlMode.RAPL)), null));
        TelemetryProfile tp = new TelemetryProfile();
        tp.setMetadata(new ObjectMetaBuilder().withName("joulie-sim").build());
        tp.setSpec(spec);
        client.resource(tp).create();
        launchProcesses(operatorJar, agentJar);
        awaitReady(readyTimeout);
    }

    /** Node labels feed the scheduler; NodePowerProfile status changes are printed as decisions. */
    private void watch() {
        informers.add(client.nodes().withLabel(SIM_LABEL, "true").inform(onAddOrUpdate(this::label)));
        informers.add(client.resources(NodePowerProfile.class).inform(onAddOrUpdate(this::print)));
    }

    /** Deletions do not matter here: nodes and profiles are only deleted when the run is over. */
    private static <T> ResourceEventHandler<T> onAddOrUpdate(Consumer<T> action) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                action.accept(obj);
            }

            @Override
            public void onUpdate(T old, T obj) {
                action.accept(obj);
            }

            @Override
            public void onDelete(T obj, boolean unknown) {
                // nothing to do
            }
        };
    }

    private void label(Node node) {
        String name = node.getMetadata().getName();
        String value = node.getMetadata().getLabels() == null ? null : node.getMetadata().getLabels().get(JoulieApi.POWER_PROFILE_LABEL);
        if (value != null) {
            labels.put(name, value);
        }
        updates.add(n -> n.label(name, value));
    }

    private void print(NodePowerProfile npp) {
        if (npp.getSpec() == null || npp.getStatus() == null || npp.getStatus().state() == null) {
            return;
        }
        String node = npp.getSpec().nodeName();
        PowerState state = npp.getStatus().state();
        PowerState before = printed.put(node, state);
        if (state != before) {
            options.out().printf(Locale.ROOT, "t=%6.0fs  %-10s %s -> %s (cap %.0f W): %s%n", simTime, node,
                    before == null ? "new" : before, state,
                    npp.getSpec().cpu() == null ? Double.NaN : npp.getSpec().cpu().packagePowerCapWatts(),
                    npp.getStatus().reason());
        }
    }

    private void launchProcesses(Path operatorJar, Path agentJar) throws IOException {
        Files.createDirectories(options.logs());
        // The embedded server by URL; a real cluster through its kubeconfig, as the two applications read it.
        Map<String, String> common = server != null
                ? Map.of("QUARKUS_KUBERNETES_CLIENT_API_SERVER_URL", server.url("/"),
                "QUARKUS_KUBERNETES_CLIENT_TRUST_CERTS", "true", "QUARKUS_KUBERNETES_CLIENT_NAMESPACE", "default")
                : Map.of("KUBECONFIG", options.kubeconfig().toAbsolutePath().toString(),
                "QUARKUS_KUBERNETES_CLIENT_NAMESPACE", "default");
        // the planner settings as the operator's environment (the settings table), its durations on wall time
        var p = config.planner().toBuilder().policyType(options.baseline().policy())
                .reconcileInterval(wall(config.tickSeconds()))
                .downgradeTimeout(wall(config.planner().downgradeTimeout().toMillis() / 1000.0))
                .settleTime(wall(config.planner().settleTime().toMillis() / 1000.0))
                .capConfirmationTimeout(wall(config.planner().capConfirmationTimeout().toMillis() / 1000.0)).build();
        Map<String, String> operator = new HashMap<>(common);
        operator.put("LEADER_ELECTION", "false");
        operator.putAll(PlannerSetting.environment(p));
        operator.put("QUARKUS_HTTP_PORT", Integer.toString(freePort()));
        operator.put("QUARKUS_MANAGEMENT_PORT", Integer.toString(freePort()));
        launch("operator", operatorJar, operator);
        Map<String, String> agent = new HashMap<>(common);
        agent.put("AGENT_MODE", "pool");
        agent.put("POOL_NODE_SELECTOR", SIM_LABEL + "=true");
        agent.put("AGENT_RECONCILE_INTERVAL", Durations.format(wall(config.tickSeconds())));
        agent.put("QUARKUS_HTTP_PORT", Integer.toString(freePort()));
        agent.put("QUARKUS_MANAGEMENT_PORT", Integer.toString(freePort()));
        launch("agent", agentJar, agent);
    }

    /** A simulated duration as the wall-clock duration the processes are configured with (at least 1 ms). */
    private Duration wall(double simSeconds) {
        return Duration.ofMillis(Math.max(1, Math.round(simSeconds * 1000 / options.speed())));
    }

    private void launch(String name, Path jar, Map<String, String> env) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        // C1 only and the serial collector: a faster start and fewer threads on a small machine; the planner and
        // the agent tick once per second here, so peak compiled speed does not matter
        ProcessBuilder pb = new ProcessBuilder(java.toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-jar", jar.toString());
        pb.environment().putAll(env);
        pb.redirectErrorStream(true);
        pb.redirectOutput(options.logs().resolve(name + ".log").toFile());
        processes.add(pb.start());
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (labels.size() < nodeNames.size() || endpoints.caps().size() < nodeNames.size()) {
            for (Process p : processes) {
                if (!p.isAlive()) {
                    throw new IllegalStateException("a Joulie process exited with status " + p.exitValue()
                            + " before the cluster was ready; see the logs in " + options.logs());
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("after " + timeout.toSeconds() + " s the operator had labelled "
                         + labels.size() + " and the agent capped " + endpoints.caps().size() + " of " + nodeNames.size()
                        + " nodes; see the logs in " + options.logs());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
        wallStart = System.nanoTime();
    }

    @Override
    public void beforeStep(double t, ExternalControl.Nodes nodes) {
        long due = wallStart + (long) (t / options.speed() * 1e9);
        long wait = due - System.nanoTime();
        if (wait > 0) {
            LockSupport.parkNanos(wait);
        }
        simTime = t;
        for (Consumer<ExternalControl.Nodes> u; (u = updates.poll()) != null; ) {
            u.accept(nodes);
        }
        double[] snapshot = new double[nodeNames.size()];
        for (int i = 0; i < snapshot.length; i++) {
            snapshot[i] = nodes.powerWatts(i);
        }
        endpoints.power(snapshot);
    }

    @Override
    public void queued(JobSpec job) {
        Pod pod = new PodBuilder().withNewMetadata().withNamespace(NAMESPACE).withName(name(job))
                .addToLabels("app.kubernetes.io/managed-by", "joulie-sim").addToLabels("joulie.io/sim-class", job.className())
                .endMetadata().withNewSpec()
                // not the cluster's scheduler: the twin's places the job (and binds it, see bind)
                .withSchedulerName("joulie-sim")
                .withNodeSelector(job.profile() == null ? Map.of() : Map.of(JoulieApi.POWER_PROFILE_LABEL, job.profile()))
                .addNewContainer().withName("job").withImage("joulie-sim/job").withNewResources()
                .addToRequests("cpu", new Quantity(Integer.toString(job.cores()))).endResources().endContainer()
                .endSpec().build();
        writer.execute(() -> client.resource(pod).create());
    }

    @Override
    public void started(JobSpec job, String node) {
        writer.execute(() -> bind(name(job), node));
    }

    /**
     * Binds a Pod to a node as a scheduler does: through the Binding subresource, which a real API server
     * honours (it refuses an update of spec.nodeName). The embedded mock server does not emulate it, so there,
     * and on any server that leaves the Pod unbound, spec.nodeName is set directly.
     */
    private void bind(String pod, String node) {
        var op = client.pods().inNamespace(NAMESPACE).withName(pod);
        if (server == null) {
            client.bindings().inNamespace(NAMESPACE).resource(new io.fabric8.kubernetes.api.model.BindingBuilder()
                    .withNewMetadata().withName(pod).endMetadata()
                    .withNewTarget().withApiVersion("v1").withKind("Node").withName(node).endTarget().build()).create();
            Pod bound = op.get();
            if (bound != null && node.equals(bound.getSpec().getNodeName())) {
                return;
            }
        }
        op.edit(p -> new PodBuilder(p).editSpec().withNodeName(node).endSpec().build());
    }

    @Override
    public void finished(JobSpec job) {
        writer.execute(() -> client.pods().inNamespace(NAMESPACE).withName(name(job)).withGracePeriod(0).delete());
    }

    private static String name(JobSpec job) {
        return job.podName().substring(NAMESPACE.length() + 1);
    }

    @Override
    public void close() {
        writer.shutdown();
        try {
            writer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Process p : processes) {
            p.destroy();
        }
        for (Process p : processes) {
            try {
                if (!p.waitFor(15, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        informers.forEach(SharedIndexInformer::close);
        endpoints.close();
        if (client != null && server == null && createdNodes) {
            removeFromCluster();
        }
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.destroy();
        }
    }

    /**
     * On a cluster that outlives the run, the twin removes what it created: its Pods, Nodes, their
     * NodePowerProfiles and node-scoped TelemetryProfiles, and its cluster TelemetryProfile.
     */
    private void removeFromCluster() {
        try {
            // only the twin's Pods (a namespace 'sim' of someone else's keeps its own); no kubelet confirms a
            // graceful deletion on the twin's Nodes, so at once
            client.pods().inNamespace(NAMESPACE).withLabel("app.kubernetes.io/managed-by", "joulie-sim")
                    .withGracePeriod(0).delete();
            for (String name : nodeNames) {
                client.nodes().withName(name).delete();
                // the operator's NodePowerProfile and the agent's node-scoped TelemetryProfile share this name
                client.resources(NodePowerProfile.class).withName(JoulieApi.nodePowerProfileName(name)).delete();
                client.resources(TelemetryProfile.class).withName(JoulieApi.nodePowerProfileName(name)).delete();
            }
            client.resources(TelemetryProfile.class).withName("joulie-sim").delete();
        } catch (RuntimeException e) {
            options.out().println("could not remove the twin's objects from " + client.getMasterUrl() + ": " + e.getMessage());
        }
    }

    /** For tests: the caps the agent sent, by node. */
    Map<String, Double> caps() {
        return endpoints.caps();
    }
}
