package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileSpec;
import io.joulie.api.v1alpha1.NodePowerProfileStatus;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.operator.config.OperatorSettings;
import io.joulie.operator.telemetry.TelemetrySource;
import io.joulie.planner.AgentReport;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.ContextProvider;
import io.joulie.planner.ManagedNode;
import io.joulie.planner.NodeCap;
import io.joulie.planner.NodePower;
import io.joulie.planner.Telemetry;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Builds the planner's context from the informer-fed {@link ClusterView}: which nodes are managed
 * (selector matches, not reserved), their state as the cluster records it (NodePowerProfile status, else
 * the node label, else ActivePerformance), their performance-only pods, and the nodes to release (those
 * with a Joulie NodePowerProfile that are no longer managed or no longer exist), and this tick's telemetry.
 */
@ApplicationScoped
public class InformerContextProvider implements ContextProvider {
    private static final Logger LOG = Logger.getLogger(InformerContextProvider.class);

    private final ClusterView view;
    private final OperatorSettings settings;
    private final Clock clock;
    private final TelemetrySource telemetry;

    public InformerContextProvider(ClusterView view, OperatorSettings settings, Clock clock, TelemetrySource telemetry) {
        this.view = view;
        this.settings = settings;
        this.clock = clock;
        this.telemetry = telemetry;
    }

    @Override
    public ClusterContext snapshot(java.time.Duration telemetryBudget) {
        // Telemetry first: its queries can take seconds, and the pods read after them are the fresher for it.
        Telemetry measured = telemetry.read(telemetryBudget);
        Instant now = clock.instant();
        List<ManagedNode> managed = new ArrayList<>();
        List<String> released = new ArrayList<>();
        List<ClusterContext.Exclusion> excluded = new ArrayList<>();
        Set<String> existing = new HashSet<>();
        List<Node> nodes = new ArrayList<>(view.nodes());
        nodes.sort(Comparator.comparing(n -> n.getMetadata().getName()));
        for (Node node : nodes) {
            String name = node.getMetadata().getName();
            existing.add(name);
            Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
            NodePowerProfile npp = ownProfile(name);
            if (!isManaged(labels)) {
                // Only nodes Joulie managed (they have its NodePowerProfile) are released: a power-profile
                // label that an admin set by hand on an unmanaged node is left alone.
                if (npp != null) {
                    released.add(name);
                }
                continue;
            }
            NodePower power = power(node);
            ClusterContext.Exclusion exclusion = exclusion(name, labels, power);
            if (exclusion != null) {
                excluded.add(exclusion);
                if (npp != null) {
                    released.add(name);
                }
                continue;
            }
            managed.add(managedNode(node, labels, npp, power, now));
        }
        for (NodePowerProfile npp : view.profiles()) {
            String node = npp.getSpec() == null ? null : npp.getSpec().nodeName();
            if (node != null && !existing.contains(node) && npp.getMetadata().getName().equals(JoulieApi.nodePowerProfileName(node))) {
                released.add(node);
            }
        }
        return new ClusterContext(now, managed, view.performancePodCount(), released, excluded, measured, view.cpuDemand(),
                view.gpuDemand());
    }

    @Override
    public ClusterContext snapshotOf(Collection<String> names) {
        Instant now = clock.instant();
        List<ManagedNode> managed = new ArrayList<>();
        for (String name : new TreeSet<>(names)) {
            Node node = view.node(name);
            if (node == null) {
                continue;
            }
            Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
            NodePowerProfile npp = ownProfile(name);
            NodePower power = power(node);
            if (isManaged(labels) && exclusion(name, labels, power) == null) {
                managed.add(managedNode(node, labels, npp, power, now));
            }
        }
        return new ClusterContext(now, managed, view.performancePodCount(), List.of(), List.of(), Telemetry.DISABLED,
                view.cpuDemand(), view.gpuDemand());
    }

    /**
     * A managed node as the cluster records it: its state, its performance-only pods, its hardware, its cap and its
     * agent's report.
     */
    private ManagedNode managedNode(Node node, Map<String, String> labels, NodePowerProfile npp, NodePower power, Instant now) {
        String name = node.getMetadata().getName();
        boolean cordoned = node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
        StateSince state = currentState(npp, labels.get(JoulieApi.POWER_PROFILE_LABEL), now);
        NodePowerProfileStatus status = npp == null ? null : npp.getStatus();
        return new ManagedNode(name, labels, cordoned, state.state(), state.since(), view.performancePods(name),
                allocatableCpu(node), power,
                view.lastPerformancePod(name), cap(npp, view.agentReport(name, npp)),
                status == null || status.forcedPods() == null ? List.of() : status.forcedPods(),
                status == null ? "" : status.reason())
                // settle times and timeouts count from this replica's own sighting too, not only the writer's clock
                .withStateSeen(npp == null ? null : view.stateSeen(name));
    }

    private static NodeCap cap(NodePowerProfile npp, AgentReport report) {
        if (npp == null || npp.getSpec() == null) {
            return new NodeCap(null, null, null, 0, report);
        }
        NodePowerProfileSpec spec = npp.getSpec();
        Long generation = npp.getMetadata().getGeneration();
        return new NodeCap(spec.profile(), spec.cpu(), spec.gpu(), generation == null ? 0 : generation, report,
                npp.getMetadata().getResourceVersion());
    }

    /** The node's allocatable CPU cores, 0 when it reports none. */
    static double allocatableCpu(Node node) {
        Quantity cpu = allocatable(node).get(CPU);
        return cpu == null ? 0 : Quantity.getAmountInBytes(cpu).doubleValue();
    }

    /**
     * Capability-based eligibility: a node whose agent found no way to cap either its CPU or its GPUs has no way to
     * enforce a profile, so planning it would only move its label. The node's NodeHardware says what its agent found
     * (a GPU node whose CPU cannot be capped is managed through its boards); before the agent has published one, the
     * capability labels do (no writable RAPL limit and no cpufreq, and no GPU the Node advertises). A node not probed
     * yet is planned.
     */
    static ClusterContext.Exclusion exclusion(String node, Map<String, String> labels, NodePower power) {
        if (power.inventory()) {
            return power.controllable() ? null : new ClusterContext.Exclusion(node, "NoPowerControl",
                    "its NodeHardware says neither the CPU nor the GPUs can be capped (cpu.control and gpu.control none)");
        }
        if ("false".equals(labels.get(JoulieApi.FEATURE_RAPL_WRITABLE)) && "false".equals(labels.get(JoulieApi.FEATURE_CPUFREQ))
                && power.gpus() == 0) {
            return new ClusterContext.Exclusion(node, "NoPowerControl",
                    "the agent found no writable RAPL limit and no cpufreq (%s=false, %s=false) and the node advertises no GPU"
                            .formatted(JoulieApi.FEATURE_RAPL_WRITABLE, JoulieApi.FEATURE_CPUFREQ));
        }
        return null;
    }

    /** What can be capped on the node: its NodeHardware inventory, and the GPU boards it advertises. */
    private NodePower power(Node node) {
        return NodePower.of(view.hardware(node.getMetadata().getName()), advertisedGpus(node));
    }

    /**
     * GPU boards the Node's device plugins advertise as allocatable: {@code nvidia.com/gpu} only, the boards the agent
     * can cap (through NVML); AMD boards ({@code amd.com/gpu}) are not capped and do not make a GPU node (decision 201).
     */
    static int advertisedGpus(Node node) {
        return allocatable(node, GPU_RESOURCES).values().stream().mapToInt(q -> q.getNumericalAmount().intValue()).sum();
    }

    /**
     * A Node as the view keeps it: of its status (conditions, images, often the bulk of a real Node) only its
     * allocatable CPU, which {@link #allocatableCpu} reads (demand_sized_v1 sizes pools by it), and the GPU boards it
     * advertises as allocatable, which {@link #advertisedGpus} reads; the rest of the Node stays whole.
     */
    static void trimStatus(Node node) {
        Map<String, Quantity> kept = allocatable(node, KEPT_RESOURCES);
        node.setStatus(kept.isEmpty() ? null : new NodeStatusBuilder().withAllocatable(kept).build());
    }

    private static final String CPU = "cpu";
    /**
     * The extended resources that are GPU boards Joulie counts: a Node's allocatable ones, a Pod's requested ones
     * ({@link PodFacts}). NVIDIA's only: the agent caps boards through NVML and nothing else, so an AMD board
     * ({@code amd.com/gpu}) is neither a board to cap nor demand for the boards it caps (decision 201).
     */
    static final List<String> GPU_RESOURCES = List.of("nvidia.com/gpu");
    /** The allocatable resources the view keeps of a Node's status. */
    private static final List<String> KEPT_RESOURCES = java.util.stream.Stream.concat(java.util.stream.Stream.of(CPU),
            GPU_RESOURCES.stream()).toList();

    private static Map<String, Quantity> allocatable(Node node) {
        return node.getStatus() == null || node.getStatus().getAllocatable() == null ? Map.of() : node.getStatus().getAllocatable();
    }

    /** The Node's allocatable quantities of these resources, the ones it has. */
    private static Map<String, Quantity> allocatable(Node node, List<String> resources) {
        Map<String, Quantity> allocatable = allocatable(node);
        Map<String, Quantity> subset = new TreeMap<>();
        resources.stream().filter(allocatable::containsKey).forEach(r -> subset.put(r, allocatable.get(r)));
        return subset;
    }

    boolean isManaged(Map<String, String> labels) {
        return settings.nodeSelector().test(labels) && !"true".equalsIgnoreCase(labels.get(settings.reservedLabelKey()));
    }

    /** The NodePowerProfile the operator keeps for this node (by its derived name and matching spec.nodeName). */
    NodePowerProfile ownProfile(String node) {
        NodePowerProfile npp = view.profile(JoulieApi.nodePowerProfileName(node));
        if (npp != null && npp.getSpec() != null && !node.equals(npp.getSpec().nodeName())) {
            LOG.warnf("NodePowerProfile %s belongs to node %s, not %s (node names collide after normalisation)",
                    npp.getMetadata().getName(), npp.getSpec().nodeName(), node);
            return null;
        }
        if (ClusterView.ownedByEarlierNode(npp, view.node(node))) {
            return null; // left by an earlier node of this name; the actuation replaces it
        }
        return npp;
    }

    private record StateSince(PowerState state, Instant since) {
    }

    private static StateSince currentState(NodePowerProfile npp, String label, Instant now) {
        if (npp != null && npp.getStatus() != null && npp.getStatus().state() != null) {
            return new StateSince(npp.getStatus().state(), parse(npp.getStatus().since(), now));
        }
        if (JoulieApi.DRAINING_PERFORMANCE.equals(label)) {
            return new StateSince(PowerState.DrainingPerformance, now);
        }
        if ("eco".equals(label)) {
            return new StateSince(PowerState.ActiveEco, now);
        }
        return new StateSince(PowerState.ActivePerformance, now);
    }

    private static Instant parse(String since, Instant fallback) {
        try {
            return since == null ? fallback : Instant.parse(since);
        } catch (DateTimeParseException e) {
            return fallback;
        }
    }
}
