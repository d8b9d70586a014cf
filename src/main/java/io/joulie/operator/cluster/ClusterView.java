package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodeHardware;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileStatus;
import io.joulie.planner.AgentReport;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.NodeLoads;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The operator's in-memory view of the cluster, fed by watches (informers) on Nodes, Pods, NodePowerProfiles,
 * the agents' NodeHardware and the active {@code Joulie} resource. A tick reads
 * only this view; it never LISTs. Of each Pod only its node, class and the CPU it requests when that counts in a demand
 * are kept ({@link PodFacts}, fed by {@link PodWatch}), indexed in the same update: the view tracks the active
 * performance-only pods, by node, and when it saw them ({@link PodSightings}), and the CPU demands demand_sized_v1 sizes
 * pools for. Nodes are kept without their status but for the allocatable CPU and the GPUs they advertise
 * ({@link TrimmedStore}), and no object read by the operator's client carries its managedFields
 * ({@link IgnoreManagedFields}). What the watches report about one node that matters to the performance contract (a
 * performance-only Pod arriving or leaving, its agent's report, its power-profile label changed) is passed on to
 * {@link #onNodeEvent} listeners at once.
 */
@ApplicationScoped
public class ClusterView implements NodeLoads {
    private static final Logger LOG = Logger.getLogger(ClusterView.class);
    /**
     * Objects per page of an informer's initial LIST (and of a relist). Unpaged, the API server answers a LIST of every
     * Pod of a large cluster in one response (21,000 Pods: about 12 s and tens of MB), which the operator must hold in
     * full before the reduced store sees a single Pod: with the 128 MiB heap a 512 Mi container gives by default, that
     * list never completed and the watches never synced (the scale benchmark, docs/benchmarks.md).
     */
    static final long LIST_PAGE = 500;
    private static final String HARDWARE_BY_NODE = "joulie.io/node";
    /**
     * Nodes, NodePowerProfiles (with the agents' answers), NodeHardware, the Joulie resource (Pods have a watch of their own,
     * {@link PodWatch}).
     */
    private static final int INFORMERS = 4;


    private final KubernetesClient client;
    private final Clock clock;
    private SharedIndexInformer<Node> nodes;
    private final List<Consumer<String>> nodeEvents = new CopyOnWriteArrayList<>();
    private final List<java.util.function.BiConsumer<io.fabric8.kubernetes.api.model.HasMetadata, List<String>>> unknownValues =
            new CopyOnWriteArrayList<>();
    /**
     * What the Pod watch keeps: per Pod its node and whether it is an active performance-only Pod, indexed by node; each
     * change is shown to the sightings, and a performance-only Pod arriving or leaving is a node event.
     */
    private final PodFacts podFacts = new PodFacts(this::podChanged, node -> {
        Node n = nodes == null ? null : nodes.getStore().getByKey(node);
        return n == null ? null : n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
    });
    private final PodSightings sightings;
    private PodWatch pods;
    private SharedIndexInformer<NodePowerProfile> profiles;
    private SharedIndexInformer<NodeHardware> hardware;
    private SharedIndexInformer<Joulie> installation;
    private final List<java.util.function.Consumer<Joulie>> installationDeleted =
            new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Per node, when the watch first showed its NodePowerProfile's current state ({@link #stateSeen}). */
    private final Map<String, Instant> stateSeen = new java.util.concurrent.ConcurrentHashMap<>();
    /** Completes once every watch has delivered its initial list. */
    private final java.util.concurrent.CompletableFuture<Void> initialSync = new java.util.concurrent.CompletableFuture<>();


    public ClusterView(KubernetesClient client, Clock clock) {
        this.client = client;
        this.clock = clock;
        this.sightings = new PodSightings(clock, node -> podFacts.performanceKeys(node),
                node -> nodes != null && nodes.getStore().getByKey(node) != null);
    }

    void start(@Observes StartupEvent ev) {
        // Of a Node's status (conditions, images: often the bulk of a real Node) only the allocatable CPU and GPUs are read here.
        nodes = client.nodes().withLimit(LIST_PAGE).runnableInformer(0).itemStore(new TrimmedStore<>(InformerContextProvider::trimStatus));
        profiles = client.resources(NodePowerProfile.class).withLimit(LIST_PAGE).runnableInformer(0);
        hardware = client.resources(NodeHardware.class).withLimit(LIST_PAGE).runnableInformer(0);
        hardware.addIndexers(Map.of(HARDWARE_BY_NODE, ClusterView::hardwareNode));
        // Only the active Joulie resource: its spec.policy is part of what a tick plans with.
        installation = client.resources(Joulie.class).withName(Joulie.ACTIVE_NAME).runnableInformer(0);
        pods = new PodWatch(client, podFacts, LIST_PAGE);
        nodes.addEventHandler(handler((before, after) -> {
            if (after == null) {
                sightings.forget(before.getMetadata().getName());
            } else if (before == null) {
                sightings.nodeSeen(after.getMetadata().getName());
            } else if (!Objects.equals(powerProfileLabel(before), powerProfileLabel(after))) {
                nodeEvent(after.getMetadata().getName());
            }
        }));
        profiles.addEventHandler(handler((before, after) -> {
            unknown(after);
            profileChanged(before, after);
        }));
        installation.addEventHandler(new io.fabric8.kubernetes.client.informers.ResourceEventHandler<>() {
            @Override
            public void onAdd(Joulie obj) {
            }

            @Override
            public void onUpdate(Joulie oldObj, Joulie newObj) {
            }

            @Override
            public void onDelete(Joulie obj, boolean deletedFinalStateUnknown) {
                installationDeleted.forEach(l -> l.accept(obj));
            }
        });
        List<java.util.concurrent.CompletableFuture<Void>> started = new ArrayList<>(INFORMERS + 1);
        started.add(pods.start());
        for (SharedIndexInformer<?> informer : List.of(nodes, profiles, hardware, installation)) {
            informer.exceptionHandler((running, t) -> {
                LOG.warnf("Watch of %s failed (%s); retrying", informer.getApiTypeClass().getSimpleName(), t.toString());
                return true;
            });
            started.add(informer.start().toCompletableFuture());
        }
        java.util.concurrent.CompletableFuture.allOf(started.toArray(java.util.concurrent.CompletableFuture[]::new))
                .whenComplete((ok, failed) -> {
                    if (failed == null) {
                        initialSync.complete(null);
                    }
                });
        LOG.info("Watching Nodes, Pods, NodePowerProfiles, NodeHardware and the Joulie resource");
    }

    void stop(@Observes ShutdownEvent ev) {
        for (SharedIndexInformer<?> informer : informers()) {
            informer.stop();
        }
        if (pods != null) {
            pods.close();
        }
    }

    private List<SharedIndexInformer<?>> informers() {
        List<SharedIndexInformer<?>> list = new ArrayList<>(INFORMERS);
        if (nodes != null) {
            list.add(nodes);
        }
        if (profiles != null) {
            list.add(profiles);
        }
        if (hardware != null) {
            list.add(hardware);
        }
        if (installation != null) {
            list.add(installation);
        }
        return list;
    }

    /**
     * Whether {@code npp} was created for an earlier Node of the same name (its owner reference names
     * another UID): it describes a machine that is gone, so it must not be read as this node's state.
     */
    public static boolean ownedByEarlierNode(NodePowerProfile npp, Node node) {
        if (npp == null || node == null || npp.getMetadata().getOwnerReferences() == null) {
            return false;
        }
        return npp.getMetadata().getOwnerReferences().stream().anyMatch(o -> "Node".equals(o.getKind())
                && o.getUid() != null && !o.getUid().equals(node.getMetadata().getUid()));
    }

    /**
     * True once every watch has delivered its initial list and is watching: planning on an incomplete or
     * stale view could downgrade busy nodes.
     */
    public boolean synced() {
        return unsynced().isEmpty();
    }

    /** The kinds whose watch has not delivered its initial list or is not watching (for logs and health). */
    public List<String> unsynced() {
        List<SharedIndexInformer<?>> all = informers();
        if (all.size() < INFORMERS || pods == null) {
            return List.of("watches not started");
        }
        List<String> unsynced = new ArrayList<>(all.stream().filter(i -> !i.hasSynced() || !i.isWatching())
                .map(i -> i.getApiTypeClass().getSimpleName() + (i.hasSynced() ? " (reconnecting)" : " (listing)")).toList());
        if (!pods.synced() || !pods.watching()) {
            unsynced.add(pods.synced() ? "Pod (reconnecting)" : "Pod (listing)");
        }
        return unsynced;
    }

    /**
     * What a NodePowerProfile's change means to the contract (the watch calls it with each change, as before/after; a
     * test's view that delivers changes itself calls it too): a new state is noted as seen now ({@link #stateSeen}), and
     * a change of the agent's answer, of the state or of the cap asked is a node event (a recheck decides on it, not the
     * next tick).
     */
    protected void profileChanged(NodePowerProfile before, NodePowerProfile after) {
        NodePowerProfile npp = after != null ? after : before;
        String node = npp.getSpec() == null ? null : npp.getSpec().nodeName();
        if (node == null) {
            return;
        }
        boolean moved = !Objects.equals(state(before), state(after)) || !Objects.equals(profile(before), profile(after));
        if (after == null) {
            stateSeen.remove(node);
        } else if (!Objects.equals(state(before), state(after))) {
            stateSeen.put(node, clock.instant());
        }
        if (moved || !Objects.equals(applied(before), applied(after))) {
            nodeEvent(node);
        }
    }

    /**
     * Of the watches the contract's guard reads between ticks (Nodes, Pods, NodePowerProfiles), those that have not
     * delivered their initial list or are not watching: a rescue waits for these only.
     */
    public List<String> contractUnsynced() {
        return unsynced().stream().filter(k -> k.startsWith("Node ") || k.startsWith("Pod ")
                || k.startsWith("NodePowerProfile ") || k.equals("watches not started")).toList();
    }

    /**
     * Runs {@code listener} once every watch has delivered its initial list (at once, on the caller's thread, if that
     * has happened already; else on the thread that completed the last list, which must not be blocked for long).
     */
    public void onInitialSync(Runnable listener) {
        initialSync.thenRun(listener);
    }

    /** Called with the active {@code Joulie} resource as it was last seen, once it is deleted. */
    public void onInstallationDeleted(java.util.function.Consumer<Joulie> listener) {
        installationDeleted.add(listener);
    }

    /** The active {@code Joulie} resource, or null when there is none. */
    public Joulie installation() {
        return installation.getStore().getByKey(Joulie.ACTIVE_NAME);
    }

    public Collection<Node> nodes() {
        return nodes.getStore().list();
    }

    public Node node(String name) {
        return nodes.getStore().getByKey(name);
    }

    public Collection<NodePowerProfile> profiles() {
        return profiles.getStore().list();
    }

    public NodePowerProfile profile(String name) {
        return profiles.getStore().getByKey(name);
    }

    /** The node's hardware as its agent published it ({@link #agentsHardware}), or null. */
    public NodeHardwareStatus hardware(String node) {
        NodeHardware nhw = agentsHardware(node);
        return nhw != null ? nhw.getStatus() : null;
    }

    /**
     * The NodeHardware the node's agent keeps, found by its {@code joulie.io/node} label (by name for a node whose name
     * is too long for a label value), or null. An object counts only if its name, label and {@code spec.nodeName} all
     * say the same node ({@link #namesItsNode}): one another node's agent made under this node's name or label, which
     * the admission policy refuses, is ignored rather than believed.
     */
    private NodeHardware agentsHardware(String node) {
        List<NodeHardware> found = JoulieApi.nodeLabelValue(node).map(value -> hardware.getIndexer().byIndex(HARDWARE_BY_NODE, value))
                .orElseGet(() -> {
                    NodeHardware byName = hardware.getStore().getByKey(JoulieApi.nodePowerProfileName(node));
                    return byName == null ? List.of() : List.of(byName);
                });
        return found.stream().filter(nhw -> namesItsNode(nhw, node)).findFirst().orElse(null);
    }

    /**
     * Whether {@code nhw} is node {@code node}'s as the agent names it: {@code spec.nodeName} is the node, the name is
     * {@link JoulieApi#nodePowerProfileName} of it and the {@code joulie.io/node} label is {@link JoulieApi#nodeLabelValue}
     * of it (absent when the node's name is no label value).
     */
    static boolean namesItsNode(NodeHardware nhw, String node) {
        Map<String, String> labels = nhw.getMetadata().getLabels() == null ? Map.of() : nhw.getMetadata().getLabels();
        return nhw.getSpec() != null && node.equals(nhw.getSpec().nodeName())
                && JoulieApi.nodePowerProfileName(node).equals(nhw.getMetadata().getName())
                && Objects.equals(JoulieApi.nodeLabelValue(node).orElse(null), labels.get(JoulieApi.NODE_LABEL));
    }

    private static List<String> hardwareNode(NodeHardware nhw) {
        Map<String, String> labels = nhw.getMetadata().getLabels();
        String node = labels == null ? null : labels.get(JoulieApi.NODE_LABEL);
        return node == null ? List.of() : List.of(node);
    }

    /** The node's active performance-only pods as {@code namespace/name}, sorted. */
    public List<String> performancePods(String node) {
        return podFacts.onNode(node);
    }

    /** The CPU active performance-only, eco-only and eco-declaring pods request, cluster-wide, scheduled or pending. */
    public ClusterContext.CpuDemand cpuDemand() {
        return podFacts.demand();
    }

    /** The CPU cores the active pods bound to {@code node} request (any class): the node's load for the energy estimate. */
    @Override
    public double requestedCores(String node) {
        return podFacts.requestedCores(node);
    }

    /** The GPU boards the same pods request, cluster-wide, scheduled or pending. */
    public ClusterContext.GpuDemand gpuDemand() {
        return podFacts.gpuDemand();
    }

    /** Active performance-only pods cluster-wide, scheduled or pending. */
    public long performancePodCount() {
        return podFacts.performanceCount();
    }

    /** When the watch first showed the performance-only pod {@code namespace/name} on its node (null if it did not). */
    public Instant performancePodSeen(String pod) {
        return sightings.firstSeen(pod);
    }

    /**
     * When the node's last performance-only pod left it; when none left since the watch first showed the node (after a
     * restart: since the operator started), then: nothing earlier is known.
     */
    public Instant lastPerformancePod(String node) {
        return sightings.lastOn(node);
    }

    /**
     * What the node's agent answered: {@code status.applied} of the NodePowerProfile {@code npp} (null: none), and whether
     * an agent serves the node (its NodeHardware exists, as {@link #agentsHardware} finds it).
     */
    public AgentReport agentReport(String node, NodePowerProfile npp) {
        return new AgentReport(applied(npp), agentsHardware(node) != null);
    }

    private static NodePowerProfileStatus.Applied applied(NodePowerProfile npp) {
        return npp == null ? null : npp.applied();
    }

    private static io.joulie.api.v1alpha1.PowerState state(NodePowerProfile npp) {
        return npp == null || npp.getStatus() == null ? null : npp.getStatus().state();
    }

    private static io.joulie.api.v1alpha1.Profile profile(NodePowerProfile npp) {
        return npp == null || npp.getSpec() == null ? null : npp.getSpec().profile();
    }

    /**
     * When this replica's watch first showed the node's NodePowerProfile in the state it is in now, by this replica's
     * clock (null: not seen). The guard measures settle times and timeouts from the later of this and {@code status.since}
     * (written by whichever replica led then, by its clock): a new leader whose clock runs ahead never commits a drain it
     * inherited before it has itself watched it for the settle time.
     */
    public Instant stateSeen(String node) {
        return stateSeen.get(node);
    }

    /**
     * Runs {@code listener} with a node's name whenever a watch reports something about it that the performance contract
     * acts on: a performance-only Pod bound to it, changed or gone; its agent's report; its power-profile label changed
     * (by hand, or by another writer). It runs on a watch thread: it must hand work to another thread.
     */
    public void onNodeEvent(Consumer<String> listener) {
        nodeEvents.add(listener);
    }

    /** Hands a node event to the {@link #onNodeEvent} listeners. */
    protected void nodeEvent(String node) {
        if (node != null && !node.isEmpty()) {
            nodeEvents.forEach(l -> l.accept(node));
        }
    }

    /**
     * Runs {@code listener} with an object (a NodePowerProfile, as the watch delivered it) and the enum
     * fields it read as unset because their value is unknown to this version ({@link UnknownEnumValues}). It runs on a
     * watch thread.
     */
    public void onUnknownValues(java.util.function.BiConsumer<io.fabric8.kubernetes.api.model.HasMetadata, List<String>> listener) {
        unknownValues.add(listener);
    }

    private void unknown(io.fabric8.kubernetes.api.model.HasMetadata object) {
        if (object != null) {
            List<String> fields = UnknownEnumValues.of(object);
            if (!fields.isEmpty()) {
                unknownValues.forEach(l -> l.accept(object, fields));
            }
        }
    }

    private static String powerProfileLabel(Node node) {
        Map<String, String> labels = node.getMetadata().getLabels();
        return labels == null ? null : labels.get(JoulieApi.POWER_PROFILE_LABEL);
    }

    /** Adds and updates as (before, after), deletions as (before, null). */
    private static <T> ResourceEventHandler<T> handler(java.util.function.BiConsumer<T, T> change) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                change.accept(null, obj);
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                change.accept(oldObj, newObj);
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                change.accept(obj, null);
            }
        };
    }

    /** A Pod's facts changed: it was on {@code before} and is on {@code after} (null when unknown or gone). */
    private void podChanged(String key, String before, String after) {
        if (sightings.seen(key, before, after)) {
            nodeEvent(after != null && !after.isEmpty() ? after : before);
        }
    }
}
