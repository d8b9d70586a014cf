package io.joulie.planner;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.joulie.api.v1alpha1.JoulieApi;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Classifies pods by the {@code joulie.io/power-profile} constraints of their {@code spec.nodeSelector}
 * and {@code requiredDuringSchedulingIgnoredDuringExecution} node affinity.
 *
 * <p>The pod's constraints are reduced to the set of profiles (performance, eco) whose nodes it may land
 * on: the node selector and every expression of a term narrow the set ({@code In} keeps the listed
 * values, {@code NotIn} removes them), terms are alternatives (their sets are united), and operators that
 * do not name profiles ({@code Exists}, {@code DoesNotExist}, {@code Gt}, {@code Lt}) leave it alone. A term without
 * any expression or field matches no node (as in Kubernetes), so it adds nothing to the union.
 * Exactly {performance} is performance-only, exactly {eco} is eco, anything else, including an empty set
 * from unknown values, is unconstrained. Preferred affinity never constrains.
 */
public final class PodClassifier {
    private static final Set<String> PROFILES = Set.of("performance", "eco");

    private PodClassifier() {
    }

    /**
     * Whether the pod still counts as demand: not Succeeded or Failed. A terminating pod (deletion requested) counts
     * until it is gone: its containers run through their grace period, a checkpoint perhaps, and must not do so under
     * the eco cap.
     */
    public static boolean isActive(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return !"Succeeded".equals(phase) && !"Failed".equals(phase);
    }

    public static PodClass classify(Pod pod) {
        return classify(pod.getSpec());
    }

    /**
     * Whether the pod declares work that loses little at a lower CPU frequency: annotation
     * {@code joulie.io/workload-class: eco}. A declaration, not a constraint: the pod keeps the class its scheduling
     * constraints give it.
     */
    public static boolean declaresEco(ObjectMeta metadata) {
        return metadata != null && metadata.getAnnotations() != null
                && JoulieApi.WORKLOAD_CLASS_ECO.equalsIgnoreCase(metadata.getAnnotations().getOrDefault(JoulieApi.WORKLOAD_CLASS_ANNOTATION, "").trim());
    }

    public static PodClass classify(PodSpec spec) {
        if (spec == null) {
            return PodClass.UNCONSTRAINED;
        }
        Set<String> allowed = new java.util.HashSet<>(PROFILES);
        Map<String, String> selector = spec.getNodeSelector();
        if (selector != null && selector.containsKey(JoulieApi.POWER_PROFILE_LABEL)) {
            allowed.retainAll(Set.of(selector.get(JoulieApi.POWER_PROFILE_LABEL)));
        }
        List<NodeSelectorTerm> terms = requiredTerms(spec);
        if (!terms.isEmpty()) {
            Set<String> union = new java.util.HashSet<>();
            for (NodeSelectorTerm term : terms) {
                union.addAll(allowedBy(term));
            }
            allowed.retainAll(union);
        }
        if (allowed.size() == 1) {
            return allowed.contains("performance") ? PodClass.PERFORMANCE : PodClass.ECO;
        }
        return PodClass.UNCONSTRAINED;
    }

    private static Set<String> allowedBy(NodeSelectorTerm term) {
        if (empty(term)) {
            return Set.of(); // matches no node
        }
        Set<String> allowed = new java.util.HashSet<>(PROFILES);
        if (term.getMatchExpressions() == null) {
            return allowed;
        }
        for (NodeSelectorRequirement r : term.getMatchExpressions()) {
            if (!JoulieApi.POWER_PROFILE_LABEL.equals(r.getKey()) || r.getOperator() == null) {
                continue;
            }
            List<String> values = r.getValues() == null ? List.of() : r.getValues();
            switch (r.getOperator()) {
                case "In" -> allowed.retainAll(values);
                case "NotIn" -> values.forEach(allowed::remove);
                default -> { } // Exists, DoesNotExist, Gt, Lt: no profile constraint
            }
        }
        return allowed;
    }

    /** A term with neither expressions nor fields: Kubernetes matches no node with it. */
    private static boolean empty(NodeSelectorTerm term) {
        return (term.getMatchExpressions() == null || term.getMatchExpressions().isEmpty())
                && (term.getMatchFields() == null || term.getMatchFields().isEmpty());
    }

    /**
     * Whether a pod bound straight to a node ({@code spec.nodeName}, past the scheduler) may still be admitted there: no
     * scheduler nor kubelet has marked it {@code PodScheduled} yet (the kubelet adds that condition once it admits a pod),
     * and its node selector and required node affinity match the node's labels and name as the kubelet's NodeAffinity
     * admission would judge them. False only when the kubelet will certainly reject it: then it does not count as a
     * pod of the node. An operator this class does not know matches (the pod counts).
     *
     * @param nodeLabels the node's labels now
     */
    public static boolean mayRunOn(Pod pod, String nodeName, Map<String, String> nodeLabels) {
        if (pod.getSpec() == null || scheduled(pod)) {
            return true;
        }
        return matches(pod.getSpec(), nodeName, nodeLabels);
    }

    /** Whether the pod carries a {@code PodScheduled} condition (set by the scheduler, or by the kubelet on admission). */
    public static boolean scheduled(Pod pod) {
        return pod.getStatus() != null && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream().anyMatch(c -> "PodScheduled".equals(c.getType()));
    }

    /** Whether the spec's node selector and required node affinity match a node with this name and these labels. */
    public static boolean matches(PodSpec spec, String nodeName, Map<String, String> nodeLabels) {
        Map<String, String> labels = nodeLabels == null ? Map.of() : nodeLabels;
        if (spec.getNodeSelector() != null && !spec.getNodeSelector().entrySet().stream()
                .allMatch(e -> e.getValue() != null && e.getValue().equals(labels.get(e.getKey())))) {
            return false;
        }
        if (spec.getAffinity() == null || spec.getAffinity().getNodeAffinity() == null
                || spec.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
            return true;
        }
        return requiredTerms(spec).stream().anyMatch(term -> !empty(term)
                && (term.getMatchExpressions() == null || term.getMatchExpressions().stream().allMatch(r -> holds(r, labels.get(r.getKey()))))
                && (term.getMatchFields() == null || term.getMatchFields().stream()
                        .allMatch(r -> !"metadata.name".equals(r.getKey()) || holds(r, nodeName))));
    }

    /** One requirement against the value it names (null: the node has no such label). */
    private static boolean holds(NodeSelectorRequirement r, String value) {
        List<String> values = r.getValues() == null ? List.of() : r.getValues();
        if (r.getOperator() == null) {
            return true;
        }
        return switch (r.getOperator()) {
            case "In" -> value != null && values.contains(value);
            case "NotIn" -> value == null || !values.contains(value);
            case "Exists" -> value != null;
            case "DoesNotExist" -> value == null;
            case "Gt", "Lt" -> value == null ? false : compares(r.getOperator(), value, values);
            default -> true;
        };
    }

    private static boolean compares(String operator, String value, List<String> values) {
        try {
            long v = Long.parseLong(value);
            long bound = Long.parseLong(values.getFirst());
            return operator.equals("Gt") ? v > bound : v < bound;
        } catch (RuntimeException e) {
            return true; // not comparable as Kubernetes reads it: counted, the safe side
        }
    }

    private static List<NodeSelectorTerm> requiredTerms(PodSpec spec) {
        if (spec.getAffinity() == null || spec.getAffinity().getNodeAffinity() == null
                || spec.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
            return List.of();
        }
        List<NodeSelectorTerm> terms = spec.getAffinity().getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms();
        return terms == null ? List.of() : terms;
    }
}
