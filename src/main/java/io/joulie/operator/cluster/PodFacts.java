package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.PodClass;
import io.joulie.planner.PodClassifier;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * What the operator keeps of the cluster's Pods: per Pod only its node, which of the CPU demands demand_sized_v1 sizes
 * pools for it counts in (active performance-only, eco-only, or declaring {@code joulie.io/workload-class: eco}) and the
 * CPU it requests, derived once when the watch delivers the Pod; the index of the active performance-only Pods by node
 * and the sums of the demands are kept in the same update.
 *
 * <p>A cluster of 5,000 nodes runs about 100,000 Pods. A Pod as delivered is several kilobytes on the heap; this keeps
 * about 150 bytes per Pod (decision 71). One writer at a time ({@link PodWatch}); readers (the tick) see each index
 * consistently.
 */
public final class PodFacts {
    /**
     * What is kept of one Pod. {@code node} is "" while unscheduled (names are interned: twenty Pods share one);
     * {@code listing} is the list that last saw it, so that a relist can drop what it did not see; {@code cores} is
     * what it requests and {@code gpus} the GPU boards it requests, kept only when it counts in a demand.
     */
    record Facts(String node, Demand demand, double cores, int gpus, int listing) {
        boolean performance() {
            return demand == Demand.PERFORMANCE;
        }
    }

    /** The CPU demand a Pod counts in, if any. */
    enum Demand {
        NONE, PERFORMANCE, ECO_ONLY, DECLARED_ECO;

        /**
         * @param nodeLabels the labels of the node the Pod names, or null when the node is not known (or none is named)
         */
        static Demand of(Pod pod, Map<String, String> nodeLabels) {
            if (!PodClassifier.isActive(pod)) {
                return NONE;
            }
            PodClass c = PodClassifier.classify(pod);
            if (nodeLabels != null && c != PodClass.UNCONSTRAINED
                    && !PodClassifier.mayRunOn(pod, pod.getSpec().getNodeName(), nodeLabels)) {
                return NONE; // bound straight to a node that does not admit it: the kubelet will reject it
            }
            return c == PodClass.PERFORMANCE ? PERFORMANCE : c == PodClass.ECO ? ECO_ONLY
                    : PodClassifier.declaresEco(pod.getMetadata()) ? DECLARED_ECO : NONE;
        }
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
    private final Function<String, Map<String, String>> nodeLabels;
    /** Node name ("" while unscheduled) → keys of its active performance-only Pods. */
    private final Map<String, Set<String>> performanceByNode = new ConcurrentHashMap<>();
    /** Cores requested, by {@link Demand} ordinal, and how many Pods count in any demand; guarded by {@code this}. */
    private final double[] cores = new double[Demand.values().length];
    /** GPU boards requested, by {@link Demand} ordinal; guarded by {@code this}. */
    private final long[] gpus = new long[Demand.values().length];
    private int counted;
    /** Cores requested by the active Pods bound to each node; guarded by {@code this}. */
    private final Map<String, Double> coresByNode = new java.util.HashMap<>();

    PodFacts() {
        this((key, before, after) -> {
        }, node -> null);
    }

    /**
     * @param nodeLabels a node's labels now, or null when the node is not known: a Pod bound straight to a node
     *                   ({@code spec.nodeName}) that no scheduler nor kubelet has marked {@code PodScheduled} counts in no
     *                   demand, nor as a performance-only Pod of the node, while the node's labels do not admit it (the
     *                   kubelet's NodeAffinity admission will reject it); it counts once the kubelet admits it
     */
    PodFacts(Changes changes, Function<String, Map<String, String>> nodeLabels) {
        this.changes = changes;
        this.nodeLabels = nodeLabels;
    }

    /** {@code namespace/name}. */
    static String keyOf(Pod pod) {
        return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    }

    /** Keeps what planning reads of this Pod, seen by list {@code listing} (or by the watch that followed it). */
    void put(Pod pod, int listing) {
        String key = keyOf(pod);
        String node = pod.getSpec() == null || pod.getSpec().getNodeName() == null ? "" : pod.getSpec().getNodeName().intern();
        Demand demand = Demand.of(pod, node.isEmpty() ? null : nodeLabels.apply(node));
        // cores: every active Pod's, for the requests by node (the energy estimate's load); GPUs: the demands' only
        Facts now = new Facts(node, demand, PodClassifier.isActive(pod) ? cpuRequest(pod) : 0,
                demand == Demand.NONE ? 0 : gpuRequest(pod), listing);
        Facts before = pods.put(key, now);
        if (before != null && before.performance() && !(now.performance() && before.node().equals(node))) {
            unindex(key, before.node());
        }
        if (now.performance()) {
            performanceByNode.computeIfAbsent(node, n -> ConcurrentHashMap.newKeySet()).add(key);
        }
        recount(before, now);
        changes.changed(key, before == null ? null : before.node(), node);
    }

    void remove(Pod pod) {
        String key = keyOf(pod);
        Facts before = pods.remove(key);
        if (before != null && before.performance()) {
            unindex(key, before.node());
        }
        recount(before, null);
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
                recount(facts, null);
                changes.changed(key, facts.node(), null);
            }
        });
    }

    /** Moves a Pod's cores from the demand it counted in to the one it counts in now (null: none). */
    private synchronized void recount(Facts before, Facts now) {
        add(before, -1);
        add(now, 1);
    }

    private void add(Facts f, int sign) {
        if (f != null && !f.node().isEmpty() && f.cores() != 0) {
            coresByNode.merge(f.node(), sign * f.cores(), (a, b) -> Math.abs(a + b) < 1e-9 ? null : a + b);
        }
        if (f != null && f.demand() != Demand.NONE) {
            cores[f.demand().ordinal()] += sign * f.cores();
            gpus[f.demand().ordinal()] += (long) sign * f.gpus();
            counted += sign;
        }
    }

    /** The CPU cores the Pod's containers request (no request counts as 0). */
    static double cpuRequest(Pod pod) {
        if (pod.getSpec() == null || pod.getSpec().getContainers() == null) {
            return 0;
        }
        double total = 0;
        for (Container c : pod.getSpec().getContainers()) {
            Quantity q = c.getResources() == null || c.getResources().getRequests() == null ? null
                    : c.getResources().getRequests().get("cpu");
            if (q != null) {
                total += Quantity.getAmountInBytes(q).doubleValue();
            }
        }
        return total;
    }

    /**
     * The GPU boards the Pod's containers ask for: their limits of {@code nvidia.com/gpu} (extended resources are
     * requested by limit; a request without a limit counts too). {@code amd.com/gpu} is not counted: those boards are
     * not capped, and a pod that asks for them runs on none of the boards Joulie caps (decision 201).
     */
    static int gpuRequest(Pod pod) {
        if (pod.getSpec() == null || pod.getSpec().getContainers() == null) {
            return 0;
        }
        int total = 0;
        for (Container c : pod.getSpec().getContainers()) {
            if (c.getResources() == null) {
                continue;
            }
            for (String r : InformerContextProvider.GPU_RESOURCES) {
                Quantity q = c.getResources().getLimits() == null ? null : c.getResources().getLimits().get(r);
                if (q == null && c.getResources().getRequests() != null) {
                    q = c.getResources().getRequests().get(r);
                }
                if (q != null) {
                    total += q.getNumericalAmount().intValue();
                }
            }
        }
        return total;
    }

    /** The CPU cores the active Pods bound to {@code node} request now (0 for none). */
    synchronized double requestedCores(String node) {
        return Math.max(0, coresByNode.getOrDefault(node, 0.0));
    }

    /** The GPU boards requested now by the Pods of each demand. */
    synchronized ClusterContext.GpuDemand gpuDemand() {
        return new ClusterContext.GpuDemand(Math.max(0, gpus[Demand.PERFORMANCE.ordinal()]),
                Math.max(0, gpus[Demand.ECO_ONLY.ordinal()]), Math.max(0, gpus[Demand.DECLARED_ECO.ordinal()]));
    }

    /** The cores requested now by the Pods of each demand. */
    synchronized ClusterContext.CpuDemand demand() {
        // sums of many additions and removals: clear the rounding left when nothing counts
        return counted == 0 ? new ClusterContext.CpuDemand(0, 0, 0)
                : new ClusterContext.CpuDemand(Math.max(0, cores[Demand.PERFORMANCE.ordinal()]),
                Math.max(0, cores[Demand.ECO_ONLY.ordinal()]), Math.max(0, cores[Demand.DECLARED_ECO.ordinal()]));
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

    /**
     * The node's active performance-only Pods as {@code namespace/name}: a read-only view, not a copy (the Pod watch
     * asks on every event); read it at once, since a node left without such Pods gets a new set when one comes.
     */
    Set<String> performanceKeys(String node) {
        return Collections.unmodifiableSet(performanceByNode.getOrDefault(node, Set.of()));
    }

    /** Active performance-only Pods cluster-wide, scheduled or pending. */
    long performanceCount() {
        return performanceByNode.values().stream().mapToLong(Set::size).sum();
    }
}
