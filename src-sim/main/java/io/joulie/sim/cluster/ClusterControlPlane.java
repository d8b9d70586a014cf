package io.joulie.sim.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.harness.JavaApp;
import io.joulie.planner.Escalation;
import io.joulie.sim.Baseline;
import io.joulie.sim.ControlPlane;
import io.joulie.sim.GpuModel;
import io.joulie.sim.JobSpec;
import io.joulie.sim.NodeType;
import io.joulie.sim.SimCluster;
import io.joulie.sim.SimConfig;
import io.joulie.sim.SimNode;
import io.joulie.sim.Simulation;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Cluster mode: the real operator and the real agent (pool mode), started from their packaged jars, decide the
 * simulated nodes' labels and caps through an API server ({@link ApiServer}: embedded, or a real cluster's), time
 * compressed by {@code speed} (simulated seconds per wall second; the operator ticks every
 * {@code sim.tickSeconds / speed}).
 *
 * <ul>
 *   <li>every simulated node is a Node ({@link TwinObjects}), every job a Pod ({@link PodMirror});</li>
 *   <li>a cluster-scoped TelemetryProfile routes every node's CPU control and telemetry over HTTP to the twin's
 *       {@link AgentEndpoints}: the agent's cap or throttle reaches the simulated node, its telemetry reads the
 *       simulated power;</li>
 *   <li>the scheduler places jobs by the {@code joulie.io/power-profile} labels the operator writes (a Node
 *       informer); NodePowerProfile status changes are printed as decisions;</li>
 *   <li>the simulated clock is paced to wall time ({@code t / speed}) from the moment every node carries a label
 *       and a cap.</li>
 * </ul>
 */
public final class ClusterControlPlane implements ControlPlane, AutoCloseable {
    /** How much of a process's log an error message quotes. */
    private static final int LOG_LINES = 25;

    /**
     * @param repo       repository root (for the operator's and agent's runner jars)
     * @param baseline   a run with a policy (B, C or D): the operator's policy
     * @param speed      simulated seconds per wall second
     * @param logs       where the operator's and agent's logs go
     * @param out        where decisions are printed
     * @param kubeconfig a kubeconfig file of the API server to run against, or null for the embedded one
     */
    public record Options(Path repo, Baseline baseline, double speed, Path logs, PrintStream out, Path kubeconfig) {
        public Options {
            SimConfig.require(baseline.policy() != null, "cluster mode runs Joulie: --baseline B, C or D");
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
    /** Each node's type, in node order. */
    private final Map<String, NodeType> types = new LinkedHashMap<>();
    private final ConcurrentLinkedQueue<Consumer<NodeControls>> updates = new ConcurrentLinkedQueue<>();
    private final Map<String, String> labels = new ConcurrentHashMap<>();
    private final Map<String, PowerState> printed = new ConcurrentHashMap<>();
    private final List<JavaApp> apps = new ArrayList<>();
    private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
    private final AgentEndpoints endpoints;
    /** The simulated cluster by node name, for the updates (set in {@link #start(SimCluster)}). */
    private NodeControls controls;
    private volatile double simTime;
    private ApiServer api;
    private TwinObjects objects;
    private PodMirror pods;
    private long wallStart;

    public ClusterControlPlane(SimConfig config, Options options) {
        // The operator's evictions are not mirrored into the twin (it watches no Pods): refuse rather than
        // report them as violations.
        SimConfig.require(config.planner().escalation() != Escalation.EVICT,
                "cluster mode does not mirror the operator's evictions: use planner.escalation hold or force");
        this.config = config;
        this.options = options;
        this.nodeNames = Simulation.nodeNames(config.nodes());
        List<Integer> typeOf = config.typeOfEachNode();
        for (int i = 0; i < nodeNames.size(); i++) {
            types.put(nodeNames.get(i), config.nodeTypes().get(typeOf.get(i)));
        }
        Map<String, GpuModel> gpus = new HashMap<>();
        types.forEach((node, type) -> {
            if (type.hasGpus()) {
                gpus.put(node, type.gpu());
            }
        });
        endpoints = new AgentEndpoints(nodeNames, gpus, updates::add);
    }

    /** Starts the API server, the endpoints, the operator and the agent; returns once every node is planned and capped. */
    public void start(Duration readyTimeout) throws IOException {
        Path operatorJar = JavaApp.Packaged.OPERATOR.jar(options.repo());
        Path agentJar = JavaApp.Packaged.AGENT.jar(options.repo());
        for (Path jar : List.of(operatorJar, agentJar)) {
            if (!Files.isRegularFile(jar)) {
                throw new IllegalArgumentException(jar + " is missing: build it first with "
                        + "./mvnw -pl src,src-agent,src-sim -am package -DskipTests (or pass --repo)");
            }
        }
        api = ApiServer.start(options.kubeconfig());
        api.installCrds();
        objects = new TwinObjects(api.client(), types);
        pods = new PodMirror(api.client(), !api.embedded());
        endpoints.start();
        watch();
        objects.create("http://127.0.0.1:" + endpoints.port(),
                OperatorPolicy.of(config.planner().withPolicy(options.baseline().policy()), config.tickSeconds(), this::wall));
        launch(operatorJar, agentJar);
        awaitReady(readyTimeout);
    }

    /** Node labels feed the scheduler; NodePowerProfile status changes are printed as decisions. */
    private void watch() {
        informers.add(api.client().nodes().withLabel(TwinObjects.SIM_LABEL, "true").inform(onAddOrUpdate(this::label)));
        informers.add(api.client().resources(NodePowerProfile.class).inform(onAddOrUpdate(this::print)));
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

    private void launch(Path operatorJar, Path agentJar) throws IOException {
        Map<String, String> operator = new HashMap<>(api.environment());
        // deployment settings only: the planner's are the Joulie resource's spec.policy (TwinObjects)
        operator.put("LEADER_ELECTION", "false");
        apps.add(JavaApp.start("operator", operatorJar, operator, options.logs()));
        Map<String, String> agent = new HashMap<>(api.environment());
        agent.put("AGENT_MODE", "pool");
        agent.put("POOL_NODE_SELECTOR", TwinObjects.SIM_LABEL + "=true");
        agent.put("AGENT_RECONCILE_INTERVAL", io.joulie.api.text.Durations.format(wall(config.tickSeconds())));
        apps.add(JavaApp.start("agent", agentJar, agent, options.logs()));
    }

    /** A simulated duration as the wall-clock duration the processes are configured with (at least 1 ms). */
    private Duration wall(double simSeconds) {
        return Duration.ofMillis(Math.max(1, Math.round(simSeconds * 1000 / options.speed())));
    }

    private void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (labels.size() < nodeNames.size() || endpoints.caps().size() < nodeNames.size()) {
            for (JavaApp app : apps) {
                if (!app.isAlive()) {
                    throw new IllegalStateException("the " + app.name() + " exited with status " + app.process().exitValue()
                            + " before the cluster was ready; its last lines (all logs in " + options.logs() + "):\n"
                            + app.tail(LOG_LINES));
                }
            }
            if (System.nanoTime() > deadline) {
                StringBuilder tails = new StringBuilder();
                apps.forEach(app -> tails.append("\n--- last lines of the ").append(app.name()).append(":\n").append(app.tail(LOG_LINES)));
                throw new IllegalStateException("after " + timeout.toSeconds() + " s the operator had labelled "
                        + labels.size() + " and the agent capped " + endpoints.caps().size() + " of " + nodeNames.size()
                        + " nodes; all logs in " + options.logs() + tails);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
        wallStart = System.nanoTime();
    }

    /** Until the operator's labels and the agent's caps arrive: no label, no cap. */
    @Override
    public void start(SimCluster cluster) {
        for (SimNode n : cluster.nodes()) {
            cluster.label(n, null);
            cluster.liftCap(n);
        }
        controls = new NodeControls() {
            @Override
            public void label(String node, String value) {
                cluster.label(cluster.node(node), value);
            }

            @Override
            public void cap(String node, double watts) {
                cluster.cap(cluster.node(node), watts);
            }

            @Override
            public void gpuCap(String node, double wattsPerBoard) {
                cluster.gpuCap(cluster.node(node), wattsPerBoard);
            }

            @Override
            public void liftCap(String node) {
                cluster.liftCap(cluster.node(node));
            }

            @Override
            public void throttle(String node, double percent) {
                cluster.throttle(cluster.node(node), percent);
            }
        };
    }

    /** Waits for wall time to catch up, applies what the operator and the agent changed, publishes the power. */
    @Override
    public void beforeStep(double t, SimCluster cluster) {
        long due = wallStart + (long) (t / options.speed() * 1e9);
        long wait = due - System.nanoTime();
        if (wait > 0) {
            LockSupport.parkNanos(wait);
        }
        simTime = t;
        for (Consumer<NodeControls> u; (u = updates.poll()) != null; ) {
            u.accept(controls);
        }
        endpoints.snapshot(cluster.nodes().stream().mapToDouble(SimNode::powerWatts).toArray(),
                cluster.nodes().stream().mapToDouble(SimNode::gpuPowerWatts).toArray(),
                cluster.nodes().stream().mapToDouble(SimNode::gpuCapWatts).toArray());
    }

    @Override
    public void queued(JobSpec job) {
        pods.queued(job);
    }

    @Override
    public void started(JobSpec job, SimNode node) {
        pods.started(job, node.name());
    }

    @Override
    public void finished(JobSpec job) {
        pods.finished(job);
    }

    @Override
    public void close() {
        if (pods != null) {
            pods.close();
        }
        apps.forEach(JavaApp::close);
        informers.forEach(SharedIndexInformer::close);
        endpoints.close();
        if (api != null) {
            if (!api.embedded() && objects != null) {
                objects.remove(options.out());
            }
            api.close();
        }
    }

    /** For tests: the caps the agent sent, by node. */
    Map<String, Double> caps() {
        return endpoints.caps();
    }

    /** The last GPU limit the agent sent each GPU node (watts per board), for tests. */
    Map<String, Double> gpuCaps() {
        return endpoints.gpuCaps();
    }
}
