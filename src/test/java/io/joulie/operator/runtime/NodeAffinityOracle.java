package io.joulie.operator.runtime;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.joulie.api.v1alpha1.JoulieApi;

import java.util.AbstractMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The fault-injection harness's own reading of a Pod's required node constraints, written from the Kubernetes API
 * reference and independent of the operator's {@code PodClassifier}: the invariants judge the operator with it, so a
 * classifier bug shows up as a violation instead of being shared by the judge.
 *
 * <p>A node admits a Pod when every {@code spec.nodeSelector} entry equals the node's label, and, if the Pod has
 * {@code requiredDuringSchedulingIgnoredDuringExecution} node affinity, at least one of its terms matches: a term
 * matches when all of its {@code matchExpressions} do, and a term with no expressions matches no node.
 * {@code In}: the label exists with one of the values; {@code NotIn}: the label is absent or has none of the values;
 * {@code Exists} / {@code DoesNotExist}: the key is present / absent; {@code Gt} / {@code Lt}: the label is an integer
 * greater / less than the single value. {@code matchFields} ({@code metadata.name}) matches the node's name.
 */
final class NodeAffinityOracle {
    private NodeAffinityOracle() {
    }

    /** Whether a node named {@code node} with {@code labels} admits {@code pod} (what the scheduler and the kubelet check). */
    static boolean admits(Pod pod, String node, Map<String, String> labels) {
        PodSpec spec = pod.getSpec();
        if (spec == null) {
            return true;
        }
        Map<String, String> own = labels == null ? Map.of() : labels;
        if (spec.getNodeSelector() != null) {
            for (Map.Entry<String, String> e : spec.getNodeSelector().entrySet()) {
                if (!e.getValue().equals(own.get(e.getKey()))) {
                    return false;
                }
            }
        }
        if (spec.getAffinity() == null || spec.getAffinity().getNodeAffinity() == null
                || spec.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
            return true;
        }
        List<NodeSelectorTerm> terms = spec.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms();
        if (terms == null) {
            return false; // a required node selector with no terms admits no node
        }
        for (NodeSelectorTerm term : terms) {
            if (matches(term, node, own)) {
                return true;
            }
        }
        return false;
    }

    private static boolean matches(NodeSelectorTerm term, String node, Map<String, String> labels) {
        boolean any = false;
        if (term.getMatchExpressions() != null) {
            for (NodeSelectorRequirement r : term.getMatchExpressions()) {
                any = true;
                if (!matches(r, labels.get(r.getKey()), labels.containsKey(r.getKey()))) {
                    return false;
                }
            }
        }
        if (term.getMatchFields() != null) {
            for (NodeSelectorRequirement r : term.getMatchFields()) {
                any = true;
                if (!"metadata.name".equals(r.getKey()) || !matches(r, node, true)) {
                    return false;
                }
            }
        }
        return any; // an empty term matches nothing
    }

    private static boolean matches(NodeSelectorRequirement r, String value, boolean present) {
        List<String> values = r.getValues() == null ? List.of() : r.getValues();
        return switch (r.getOperator()) {
            case "In" -> present && values.contains(value);
            case "NotIn" -> !present || !values.contains(value);
            case "Exists" -> present;
            case "DoesNotExist" -> !present;
            case "Gt", "Lt" -> present && values.size() == 1 && compare(value, values.get(0), r.getOperator());
            default -> false;
        };
    }

    private static boolean compare(String value, String bound, String op) {
        try {
            long v = Long.parseLong(value);
            long b = Long.parseLong(bound);
            return "Gt".equals(op) ? v > b : v < b;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /**
     * Performance-only by the contract: among managed nodes that differ only in their power-profile label, the Pod is
     * admitted by one labelled {@code performance} and by none labelled {@code eco}.
     */
    static boolean performanceOnly(Pod pod, String node, Map<String, String> nodeLabels) {
        return admits(pod, node, withProfile(nodeLabels, "performance")) && !admits(pod, node, withProfile(nodeLabels, "eco"));
    }

    private static Map<String, String> withProfile(Map<String, String> labels, String profile) {
        return new WithProfile(labels == null ? Map.of() : labels, profile);
    }

    /**
     * {@code labels} with the power-profile label set to {@code profile}, without a copy (the oracle runs after every
     * step of the harness): lookups answer from the overlay, anything else sees the whole map.
     */
    private static final class WithProfile extends AbstractMap<String, String> {
        private final Map<String, String> labels;
        private final String profile;

        WithProfile(Map<String, String> labels, String profile) {
            this.labels = labels;
            this.profile = profile;
        }

        @Override
        public String get(Object key) {
            return JoulieApi.POWER_PROFILE_LABEL.equals(key) ? profile : labels.get(key);
        }

        @Override
        public boolean containsKey(Object key) {
            return JoulieApi.POWER_PROFILE_LABEL.equals(key) || labels.containsKey(key);
        }

        @Override
        public Set<Map.Entry<String, String>> entrySet() {
            Map<String, String> all = new HashMap<>(labels);
            all.put(JoulieApi.POWER_PROFILE_LABEL, profile);
            return all.entrySet();
        }
    }

    /** Running by Kubernetes: the kubelet started it and it is not gone yet (a terminating Pod runs through its grace period). */
    static boolean running(Pod pod) {
        return pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase());
    }
}
