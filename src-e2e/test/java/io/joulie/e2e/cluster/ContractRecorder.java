package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Watches Pods of one namespace and every NodePowerProfile for the whole of a scenario and checks, at every
 * event, the performance contract: no performance-only Pod (one that selects {@code joulie.io/power-profile:
 * performance}) bound to a node whose NodePowerProfile says eco. Also measures the scheduler's binding lag (from
 * the Pod's first sighting unbound to its first sighting bound), which the drain's settle time must exceed.
 */
public final class ContractRecorder implements AutoCloseable {
    public record Violation(String pod, String node, long atMillis) {
    }

    private final Map<String, Pod> pods = new ConcurrentHashMap<>();
    private final Map<String, String> profiles = new ConcurrentHashMap<>();
    private final Map<String, Long> firstSeenUnbound = new ConcurrentHashMap<>();
    private final List<Long> bindingLagMillis = new ArrayList<>();
    private final List<Violation> violations = new ArrayList<>();
    private final List<String> profileChanges = new ArrayList<>();
    private final SharedIndexInformer<Pod> podInformer;
    private final SharedIndexInformer<NodePowerProfile> nppInformer;
    private final long start = System.currentTimeMillis();

    public ContractRecorder(KubernetesClient client, String namespace) {
        nppInformer = client.resources(NodePowerProfile.class).inform(handler(this::profile,
                npp -> profiles.remove(npp.getSpec().nodeName())));
        podInformer = client.pods().inNamespace(namespace).inform(handler(this::pod, pod -> pods.remove(pod.getMetadata().getName())));
    }

    /** Adds and updates go to one action, deletions to another. */
    static <T> ResourceEventHandler<T> handler(java.util.function.Consumer<T> upsert, java.util.function.Consumer<T> delete) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                upsert.accept(obj);
            }

            @Override
            public void onUpdate(T old, T obj) {
                upsert.accept(obj);
            }

            @Override
            public void onDelete(T obj, boolean unknown) {
                delete.accept(obj);
            }
        };
    }

    /** The Pod demands performance supply: it selects the performance profile by node selector. */
    public static boolean performanceOnly(Pod pod) {
        Map<String, String> selector = pod.getSpec().getNodeSelector();
        return selector != null && "performance".equals(selector.get(JoulieApi.POWER_PROFILE_LABEL));
    }

    private synchronized void profile(NodePowerProfile npp) {
        String node = npp.getSpec().nodeName();
        String profile = npp.getSpec().profile() == null ? null : npp.getSpec().profile().value();
        if (!Objects.equals(profiles.put(node, profile), profile)) {
            profileChanges.add((System.currentTimeMillis() - start) + "ms " + node + " -> " + profile);
        }
        check();
    }

    private synchronized void pod(Pod pod) {
        String name = pod.getMetadata().getName();
        pods.put(name, pod);
        String node = pod.getSpec().getNodeName();
        long now = System.currentTimeMillis();
        if (node == null) {
            firstSeenUnbound.putIfAbsent(name, now);
        } else {
            Long unbound = firstSeenUnbound.remove(name);
            if (unbound != null) {
                bindingLagMillis.add(now - unbound);
            }
        }
        check();
    }

    private void check() {
        for (Pod pod : pods.values()) {
            String node = pod.getSpec().getNodeName();
            if (node != null && pod.getMetadata().getDeletionTimestamp() == null && performanceOnly(pod)
                    && "eco".equals(profiles.get(node))) {
                String name = pod.getMetadata().getName();
                if (violations.stream().noneMatch(v -> v.pod().equals(name))) {
                    violations.add(new Violation(name, node, System.currentTimeMillis() - start));
                }
            }
        }
    }

    public synchronized List<Violation> violations() {
        return List.copyOf(violations);
    }

    public synchronized List<Long> bindingLagMillis() {
        return List.copyOf(bindingLagMillis);
    }

    public synchronized List<String> profileChanges() {
        return List.copyOf(profileChanges);
    }

    @Override
    public void close() {
        podInformer.close();
        nppInformer.close();
    }
}
