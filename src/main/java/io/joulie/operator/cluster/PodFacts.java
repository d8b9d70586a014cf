package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.joulie.planner.PodClass;
import io.joulie.planner.PodClassifier;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The Pod informer's store: per Pod only what planning reads — its node, whether it is an active performance-only Pod —
 * derived once when the watch delivers the Pod, plus the resource version the informer compares; and the index of the
 * active performance-only Pods by node, kept in the same update.
 *
 * <p>A cluster of 5,000 nodes runs about 100,000 Pods. A full Pod is several kilobytes on the heap, and fabric8's
 * {@code ReducedStateItemStore} keeps a few fields but converts every Pod to a map and back on every event; this store
 * keeps about 150 bytes per Pod and classifies each Pod once (docs/benchmarks.md, decision 71).
 *
 * <p>{@link #get} and {@link #values} rebuild a minimal Pod (namespace, name, resource version, node, phase) for the
 * informer's own bookkeeping; nothing in the operator reads Pods from this store other than through {@link #onNode}
 * and {@link #performanceCount}.
 */
public final class PodFacts implements ItemStore<Pod> {
    /** What the store keeps of one Pod. {@code node} is "" while unscheduled; names are interned (20 Pods share one). */
    record Facts(String resourceVersion, String node, boolean performance) {
    }

    private final Map<String, Facts> pods = new ConcurrentHashMap<>();
    /** Node name ("" while unscheduled) → keys of its active performance-only Pods. */
    private final Map<String, Set<String>> performanceByNode = new ConcurrentHashMap<>();

    static Facts factsOf(Pod pod) {
        String node = pod.getSpec() == null || pod.getSpec().getNodeName() == null ? "" : pod.getSpec().getNodeName().intern();
        boolean performance = PodClassifier.isActive(pod) && PodClassifier.classify(pod) == PodClass.PERFORMANCE;
        return new Facts(pod.getMetadata().getResourceVersion(), node, performance);
    }

    @Override
    public String getKey(Pod pod) {
        return Cache.metaNamespaceKeyFunc(pod);
    }

    /** The informer's cache calls this under its own lock: one writer at a time; readers see each index consistently. */
    @Override
    public Pod put(String key, Pod pod) {
        Facts now = factsOf(pod);
        Facts before = pods.put(key, now);
        unindex(key, before);
        if (now.performance()) {
            performanceByNode.computeIfAbsent(now.node(), n -> ConcurrentHashMap.newKeySet()).add(key);
        }
        return restore(key, before);
    }

    @Override
    public Pod remove(String key) {
        Facts before = pods.remove(key);
        unindex(key, before);
        return restore(key, before);
    }

    private void unindex(String key, Facts before) {
        if (before == null || !before.performance()) {
            return;
        }
        performanceByNode.computeIfPresent(before.node(), (n, keys) -> {
            keys.remove(key);
            return keys.isEmpty() ? null : keys;
        });
    }

    @Override
    public Stream<String> keySet() {
        return pods.keySet().stream();
    }

    @Override
    public Stream<Pod> values() {
        return pods.entrySet().stream().map(e -> restore(e.getKey(), e.getValue()));
    }

    @Override
    public int size() {
        return pods.size();
    }

    @Override
    public Pod get(String key) {
        return restore(key, pods.get(key));
    }

    /**
     * A full-state store (the default, said here because it matters): while the initial list is paged in, the informer
     * then defers each Pod's add event as a key, and sends the events once the list is complete with the Pods rebuilt
     * from this store. A store that is not full-state gets one event per Pod as each page arrives, each holding the
     * whole Pod as delivered, queued for an event thread: at 100,000 Pods on a busy machine that queue held 80,000 Pods
     * and ran the operator out of memory before the list completed.
     */
    @Override
    public boolean isFullState() {
        return true;
    }

    private static Pod restore(String key, Facts facts) {
        if (facts == null) {
            return null;
        }
        int slash = key.indexOf('/');
        return new PodBuilder().withNewMetadata().withNamespace(slash < 0 ? null : key.substring(0, slash))
                .withName(key.substring(slash + 1)).withResourceVersion(facts.resourceVersion()).endMetadata()
                .withNewSpec().withNodeName(facts.node().isEmpty() ? null : facts.node()).endSpec().build();
    }

    /** The node's active performance-only Pods as {@code namespace/name}, sorted ("" for the unscheduled ones). */
    List<String> onNode(String node) {
        List<String> keys = new ArrayList<>(performanceByNode.getOrDefault(node, Set.of()));
        keys.sort(null);
        return keys;
    }

    /** Active performance-only Pods cluster-wide, scheduled or pending. */
    long performanceCount() {
        return performanceByNode.values().stream().mapToLong(Set::size).sum();
    }
}
