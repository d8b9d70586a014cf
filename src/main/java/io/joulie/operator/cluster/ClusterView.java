package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodeHardware;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.planner.ClusterContext;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The operator's in-memory view of the cluster, fed by watches (informers) on Nodes, Pods,
 * NodePowerProfiles, the agents' NodeHardware and the active {@code Joulie} resource. A tick reads only this view; it
 * never LISTs. Of each Pod only its node, class and the CPU it requests when that counts in a demand are kept
 * ({@link PodFacts}, fed by {@link PodWatch}), indexed in the same update: the view tracks the active performance-only
 * pods, by node, and the CPU demands demand_sized_v1 sizes pools for. Nodes are kept without their status but for the
 * allocatable CPU and the GPUs they advertise ({@link TrimmedStore}), and no object read by the
 * operator's client carries its managedFields ({@link IgnoreManagedFields}).
 */
@ApplicationScoped
public class ClusterView {
    private static final Logger LOG = Logger.getLogger(ClusterView.class);
    /**
     * Objects per page of an informer's initial LIST (and of a relist). Unpaged, the API server answers a LIST of every
     * Pod of a large cluster in one response (21,000 Pods: about 12 s and tens of MB), which the operator must hold in
     * full before the reduced store sees a single Pod: with the 128 MiB heap a 512 Mi container gives by default, that
     * list never completed and the watches never synced (the scale benchmark, docs/benchmarks.md).
     */
    static final long LIST_PAGE = 500;
    /** Nodes, NodePowerProfiles, NodeHardware, the Joulie resource (Pods have a watch of their own, {@link PodWatch}). */
    private static final int INFORMERS = 4;


    private final KubernetesClient client;
    private SharedIndexInformer<Node> nodes;
    /** What the Pod watch keeps: per Pod its node and whether it is an active performance-only Pod, indexed by node. */
    private final PodFacts podFacts = new PodFacts();
    private PodWatch pods;
    private SharedIndexInformer<NodePowerProfile> profiles;
    private SharedIndexInformer<NodeHardware> hardware;
    private SharedIndexInformer<Joulie> installation;
    private final List<java.util.function.Consumer<Joulie>> installationDeleted =
            new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Completes once every watch has delivered its initial list. */
    private final java.util.concurrent.CompletableFuture<Void> initialSync = new java.util.concurrent.CompletableFuture<>();

    public ClusterView(KubernetesClient client) {
        this.client = client;
    }

    void start(@Observes StartupEvent ev) {
        // Of a Node's status (conditions, images: often the bulk of a real Node) only the allocatable CPU and GPUs are read here.
        nodes = client.nodes().withLimit(LIST_PAGE).runnableInformer(0).itemStore(new TrimmedStore<>(InformerContextProvider::trimStatus));
        profiles = client.resources(NodePowerProfile.class).withLimit(LIST_PAGE).runnableInformer(0);
        hardware = client.resources(NodeHardware.class).withLimit(LIST_PAGE).runnableInformer(0);
        // Only the active Joulie resource: its spec.policy is part of what a tick plans with.
        installation = client.resources(Joulie.class).withName(Joulie.ACTIVE_NAME).runnableInformer(0);
        pods = new PodWatch(client, podFacts, LIST_PAGE);
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

    /** The node's hardware as its agent published it (the NodeHardware of the node's name whose spec names it), or null. */
    public NodeHardwareStatus hardware(String node) {
        NodeHardware nhw = hardware.getStore().getByKey(JoulieApi.nodePowerProfileName(node));
        return nhw != null && nhw.getSpec() != null && node.equals(nhw.getSpec().nodeName()) ? nhw.getStatus() : null;
    }

    /** The node's active performance-only pods as {@code namespace/name}, sorted. */
    public List<String> performancePods(String node) {
        return podFacts.onNode(node);
    }

    /** The CPU active performance-only, eco-only and eco-declaring pods request, cluster-wide, scheduled or pending. */
    public ClusterContext.CpuDemand cpuDemand() {
        return podFacts.demand();
    }

    /** Active performance-only pods cluster-wide, scheduled or pending. */
    public long performancePodCount() {
        return podFacts.performanceCount();
    }
}
