package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Watches Pods of one namespace, every NodePowerProfile and every Node for the whole of a scenario and keeps, at every
 * event, the books of the performance contract: each time a performance-only Pod (one that selects
 * {@code joulie.io/power-profile: performance}) is bound to a node whose NodePowerProfile says eco, and how long until
 * that ends (the profile back to performance, or the Pod gone). Also measures the scheduler: its binding lag (from the
 * Pod's first sighting unbound to its first sighting bound) and its late bindings (a performance-only Pod bound to a
 * node after the node's label stopped saying performance: the scheduler still had the old label), which the drain's
 * settle time must outlast.
 */
public final class ContractRecorder implements AutoCloseable {
    /** A performance-only Pod on a node whose profile said eco, for {@code millis} (-1 while it lasts). */
    public record Violation(String pod, String node, long atMillis, long millis) {
    }

    private final Map<String, Pod> pods = new ConcurrentHashMap<>();
    private final Map<String, String> profiles = new ConcurrentHashMap<>();
    private final Map<String, Long> firstSeenUnbound = new ConcurrentHashMap<>();
    /** Per node, when its label last stopped saying performance. */
    private final Map<String, Long> labelLeftPerformance = new HashMap<>();
    private final Map<String, String> labels = new HashMap<>();
    private final List<Long> bindingLagMillis = new ArrayList<>();
    private final List<Long> lateBindingMillis = new ArrayList<>();
    private final Map<String, Violation> open = new HashMap<>();
    private final List<Violation> violations = new ArrayList<>();
    private final List<String> profileChanges = new ArrayList<>();
    private final SharedIndexInformer<Pod> podInformer;
    private final SharedIndexInformer<NodePowerProfile> nppInformer;
    private final SharedIndexInformer<Node> nodeInformer;
    private final long start = System.currentTimeMillis();

    public ContractRecorder(KubernetesClient client, String namespace) {
        nodeInformer = client.nodes().inform(handler(this::node, n -> { }));
        nppInformer = client.resources(NodePowerProfile.class).inform(handler(this::profile,
                npp -> profiles.remove(npp.getSpec().nodeName())));
        podInformer = client.pods().inNamespace(namespace).inform(handler(this::pod, this::podGone));
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

    private long now() {
        return System.currentTimeMillis() - start;
    }

    private synchronized void node(Node node) {
        String name = node.getMetadata().getName();
        String label = node.getMetadata().getLabels() == null ? null : node.getMetadata().getLabels().get(JoulieApi.POWER_PROFILE_LABEL);
        String before = labels.put(name, label);
        if ("performance".equals(before) && !"performance".equals(label)) {
            labelLeftPerformance.put(name, now());
        } else if ("performance".equals(label)) {
            labelLeftPerformance.remove(name);
        }
    }

    private synchronized void profile(NodePowerProfile npp) {
        String node = npp.getSpec().nodeName();
        String profile = npp.getSpec().profile() == null ? null : npp.getSpec().profile().value();
        if (!Objects.equals(profiles.put(node, profile), profile)) {
            profileChanges.add(now() + "ms " + node + " -> " + profile);
        }
        check();
    }

    private synchronized void pod(Pod pod) {
        String name = pod.getMetadata().getName();
        Pod before = pods.put(name, pod);
        String node = pod.getSpec().getNodeName();
        long now = now();
        if (node == null) {
            firstSeenUnbound.putIfAbsent(name, now);
        } else {
            Long unbound = firstSeenUnbound.remove(name);
            if (unbound != null) {
                bindingLagMillis.add(now - unbound);
                Long left = labelLeftPerformance.get(node);
                if (left != null && performanceOnly(pod) && (before == null || before.getSpec().getNodeName() == null)) {
                    lateBindingMillis.add(now - left);
                }
            }
        }
        check();
    }

    private synchronized void podGone(Pod pod) {
        pods.remove(pod.getMetadata().getName());
        check();
    }

    /** Opens a violation for every performance-only Pod bound to an eco node, and closes the ones that ended. */
    private void check() {
        long now = now();
        Map<String, String> under = new HashMap<>();
        for (Pod pod : pods.values()) {
            String node = pod.getSpec().getNodeName();
            if (node != null && pod.getMetadata().getDeletionTimestamp() == null && performanceOnly(pod)
                    && "eco".equals(profiles.get(node))) {
                under.put(pod.getMetadata().getName() + "@" + node, node);
            }
        }
        under.forEach((key, node) -> open.computeIfAbsent(key, k -> new Violation(k.substring(0, k.indexOf('@')), node, now, -1)));
        open.entrySet().removeIf(e -> {
            if (under.containsKey(e.getKey())) {
                return false;
            }
            Violation v = e.getValue();
            violations.add(new Violation(v.pod(), v.node(), v.atMillis(), now - v.atMillis()));
            return true;
        });
    }

    /** Every violation, ended or still going (those with {@code millis} -1, counted up to now). */
    public synchronized List<Violation> violations() {
        List<Violation> all = new ArrayList<>(violations);
        long now = now();
        open.values().forEach(v -> all.add(new Violation(v.pod(), v.node(), v.atMillis(), now - v.atMillis())));
        return all;
    }

    public synchronized List<Long> bindingLagMillis() {
        return List.copyOf(bindingLagMillis);
    }

    /** For each performance-only Pod bound to a node whose label no longer said performance: how long after it stopped. */
    public synchronized List<Long> lateBindingMillis() {
        return List.copyOf(lateBindingMillis);
    }

    public synchronized List<String> profileChanges() {
        return List.copyOf(profileChanges);
    }

    @Override
    public void close() {
        podInformer.close();
        nppInformer.close();
        nodeInformer.close();
    }
}
