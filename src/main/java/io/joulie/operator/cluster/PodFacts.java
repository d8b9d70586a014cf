package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.joulie.planner.PodClass;
import io.joulie.planner.PodClassifier;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the operator keeps of the cluster's Pods: per Pod only its node and whether it is an active performance-only
 * Pod, derived once when the watch delivers the Pod, and the index of the active performance-only Pods by node, kept in
 * the same update.
 *
 * <p>A cluster of 5,000 nodes runs about 100,000 Pods. A Pod as delivered is several kilobytes on the heap; this keeps
 * about 150 bytes per Pod (decision 71). One writer at a time ({@link PodWatch}); readers (the tick) see each index
 * consistently.
 */
public final class PodFacts {
    /**
     * What is kept of one Pod. {@code node} is "" while unscheduled (names are interned: twenty Pods share one);
     * {@code listing} is the list that last saw it, so that a relist can drop what it did not see.
     */
    record Facts(String node, boolean performance, int listing) {
    }

    /** Told of every change once the index shows it. */
    @FunctionalInterface
    interface Changes {
        /**
         * Pod {@code key} was on node {@code before} and is on {@code after} ("" while unscheduled, null when it was not
         * known before or is gone now).
         */
        void changed(String key, String before, String after);
    }

    private final Map<String, Facts> pods = new ConcurrentHashMap<>();
    private final Changes changes;
    /** Node name ("" while unscheduled) → keys of its active performance-only Pods. */
    private final Map<String, Set<String>> performanceByNode = new ConcurrentHashMap<>();

    PodFacts() {
        this((key, before, after) -> {
        });
    }

    PodFacts(Changes changes) {
        this.changes = changes;
    }

    /** {@code namespace/name}. */
    static String keyOf(Pod pod) {
        return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    }

    /** Keeps what planning reads of this Pod, seen by list {@code listing} (or by the watch that followed it). */
    void put(Pod pod, int listing) {
        String key = keyOf(pod);
        String node = pod.getSpec() == null || pod.getSpec().getNodeName() == null ? "" : pod.getSpec().getNodeName().intern();
        boolean performance = PodClassifier.isActive(pod) && PodClassifier.classify(pod) == PodClass.PERFORMANCE;
        Facts before = pods.put(key, new Facts(node, performance, listing));
        if (before != null && before.performance() && !(performance && before.node().equals(node))) {
            unindex(key, before.node());
        }
        if (performance) {
            performanceByNode.computeIfAbsent(node, n -> ConcurrentHashMap.newKeySet()).add(key);
        }
        changes.changed(key, before == null ? null : before.node(), node);
    }

    void remove(Pod pod) {
        String key = keyOf(pod);
        Facts before = pods.remove(key);
        if (before != null && before.performance()) {
            unindex(key, before.node());
        }
        if (before != null) {
            changes.changed(key, before.node(), null);
        }
    }

    /** Drops every Pod that list {@code listing} did not see: it was deleted while no watch was open. */
    void sweep(int listing) {
        pods.forEach((key, facts) -> {
            if (facts.listing() != listing && pods.remove(key, facts)) {
                if (facts.performance()) {
                    unindex(key, facts.node());
                }
                changes.changed(key, facts.node(), null);
            }
        });
    }

    private void unindex(String key, String node) {
        performanceByNode.computeIfPresent(node, (n, keys) -> {
            keys.remove(key);
            return keys.isEmpty() ? null : keys;
        });
    }

    int size() {
        return pods.size();
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
