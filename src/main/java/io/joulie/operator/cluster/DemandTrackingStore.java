package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.PodClass;
import io.joulie.planner.PodClassifier;

import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The Pod store, with the CPU that active pods request summed as they come and go: performance-only pods, eco-only
 * pods, and pods without a profile constraint that declare {@code joulie.io/workload-class: eco} (what demand_sized_v1
 * sizes the pools for). The sums are taken
 * from the full Pod before the delegate store reduces it, so the store keeps no container specs.
 */
final class DemandTrackingStore implements ItemStore<Pod> {
    private final ItemStore<Pod> delegate;
    /** Pod key → its cores in {performance, eco-only, declared eco}, only for pods that count. */
    private final Map<String, double[]> counted = new HashMap<>();
    private final double[] totals = new double[3];

    DemandTrackingStore(ItemStore<Pod> delegate) {
        this.delegate = delegate;
    }

    @Override
    public String getKey(Pod pod) {
        return delegate.getKey(pod);
    }

    @Override
    public Pod put(String key, Pod pod) {
        count(key, pod);
        return delegate.put(key, pod);
    }

    @Override
    public Pod remove(String key) {
        count(key, null);
        return delegate.remove(key);
    }

    private synchronized void count(String key, Pod pod) {
        double[] before = counted.remove(key);
        if (before != null) {
            for (int i = 0; i < totals.length; i++) {
                totals[i] -= before[i];
            }
        }
        if (pod == null || !PodClassifier.isActive(pod)) {
            return;
        }
        PodClass c = PodClassifier.classify(pod);
        int slot = c == PodClass.PERFORMANCE ? 0 : c == PodClass.ECO ? 1
                : PodClassifier.declaresEco(pod.getMetadata()) ? 2 : -1;
        if (slot < 0) {
            return;
        }
        double[] now = new double[3];
        now[slot] = cpuRequest(pod);
        counted.put(key, now);
        totals[slot] += now[slot];
    }

    /** The CPU cores the pod's containers request (no request counts as 0). */
    static double cpuRequest(Pod pod) {
        if (pod.getSpec() == null || pod.getSpec().getContainers() == null) {
            return 0;
        }
        double cores = 0;
        for (Container c : pod.getSpec().getContainers()) {
            Quantity q = c.getResources() == null || c.getResources().getRequests() == null ? null
                    : c.getResources().getRequests().get("cpu");
            if (q != null) {
                cores += Quantity.getAmountInBytes(q).doubleValue();
            }
        }
        return cores;
    }

    /** The CPU requested by the counted pods now. */
    synchronized ClusterContext.CpuDemand demand() {
        // sums of many additions and removals: clear the rounding left when nothing counts
        return counted.isEmpty() ? new ClusterContext.CpuDemand(0, 0, 0)
                : new ClusterContext.CpuDemand(Math.max(0, totals[0]), Math.max(0, totals[1]), Math.max(0, totals[2]));
    }

    @Override
    public Stream<String> keySet() {
        return delegate.keySet();
    }

    @Override
    public Stream<Pod> values() {
        return delegate.values();
    }

    @Override
    public int size() {
        return delegate.size();
    }

    @Override
    public Pod get(String key) {
        return delegate.get(key);
    }

    @Override
    public boolean isFullState() {
        return delegate.isFullState();
    }
}
