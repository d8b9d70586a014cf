package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.ReducedStateItemStore;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.operator.planner.PodClass;
import io.joulie.operator.planner.PodClassifier;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The operator's in-memory view of the cluster, fed by watches (informers) on Nodes, Pods and
 * NodePowerProfiles. A tick reads only this view; it never LISTs. Pods are kept in a reduced store (only
 * the fields classification needs) and indexed incrementally: the view tracks just the active
 * performance-only pods, by node.
 */
@ApplicationScoped
public class ClusterView {
    private static final Logger LOG = Logger.getLogger(ClusterView.class);
    /** Pod fields kept by the informer's store; everything else is dropped to save memory. */
    private static final String[] POD_FIELDS = {"metadata.deletionTimestamp", "spec.nodeName", "spec.nodeSelector",
            "spec.affinity", "status.phase"};

    private final KubernetesClient client;
    private SharedIndexInformer<Node> nodes;
    private SharedIndexInformer<Pod> pods;
    private SharedIndexInformer<NodePowerProfile> profiles;
    /** Active performance-only pods: {@code namespace/name} → node name ("" while unscheduled). */
    private final Map<String, String> performancePods = new ConcurrentHashMap<>();

    public ClusterView(KubernetesClient client) {
        this.client = client;
    }

    void start(@Observes StartupEvent ev) {
        nodes = client.nodes().runnableInformer(0);
        profiles = client.resources(NodePowerProfile.class).runnableInformer(0);
        pods = client.pods().inAnyNamespace().runnableInformer(0)
                .itemStore(new ReducedStateItemStore<>(ReducedStateItemStore.NAME_KEY_STATE, Pod.class,
                        client.getKubernetesSerialization(), POD_FIELDS));
        pods.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                index(pod);
            }

            @Override
            public void onUpdate(Pod oldPod, Pod newPod) {
                index(newPod);
            }

            @Override
            public void onDelete(Pod pod, boolean unknownFinalState) {
                performancePods.remove(key(pod));
            }
        });
        for (SharedIndexInformer<?> informer : List.of(nodes, profiles, pods)) {
            informer.exceptionHandler((running, t) -> {
                LOG.warnf("Watch of %s failed (%s); retrying", informer.getApiTypeClass().getSimpleName(), t.toString());
                return true;
            });
            informer.start();
        }
        LOG.info("Watching Nodes, Pods and NodePowerProfiles");
    }

    void stop(@Observes ShutdownEvent ev) {
        for (SharedIndexInformer<?> informer : informers()) {
            informer.stop();
        }
    }

    private List<SharedIndexInformer<?>> informers() {
        List<SharedIndexInformer<?>> list = new ArrayList<>(3);
        if (nodes != null) {
            list.add(nodes);
        }
        if (profiles != null) {
            list.add(profiles);
        }
        if (pods != null) {
            list.add(pods);
        }
        return list;
    }

    private void index(Pod pod) {
        String key = key(pod);
        if (PodClassifier.isActive(pod) && PodClassifier.classify(pod) == PodClass.PERFORMANCE) {
            String node = pod.getSpec() == null || pod.getSpec().getNodeName() == null ? "" : pod.getSpec().getNodeName();
            performancePods.put(key, node);
        } else {
            performancePods.remove(key);
        }
    }

    private static String key(Pod pod) {
        return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    }

    /** True once every watch has delivered its initial list: planning before that could downgrade busy nodes. */
    public boolean synced() {
        List<SharedIndexInformer<?>> all = informers();
        return all.size() == 3 && all.stream().allMatch(SharedIndexInformer::hasSynced);
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

    /** Active performance-only pods by node name, each list sorted; unscheduled pods are under "". */
    public Map<String, List<String>> performancePodsByNode() {
        Map<String, List<String>> byNode = new HashMap<>();
        performancePods.forEach((pod, node) -> byNode.computeIfAbsent(node, n -> new ArrayList<>()).add(pod));
        byNode.values().forEach(list -> list.sort(null));
        return byNode;
    }

    /** Active performance-only pods cluster-wide, scheduled or pending. */
    public long performancePodCount() {
        return performancePods.size();
    }
}
