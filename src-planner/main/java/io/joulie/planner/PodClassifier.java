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
 * do not name profiles ({@code Exists}, {@code DoesNotExist}, {@code Gt}, {@code Lt}) leave it alone.
 * Exactly {performance} is performance-only, exactly {eco} is eco, anything else, including an empty set
 * from unknown values, is unconstrained. Preferred affinity never constrains.
 */
public final class PodClassifier {
    private static final Set<String> PROFILES = Set.of("performance", "eco");

    private PodClassifier() {
    }

    /** Whether the pod still counts as demand: not terminating, not Succeeded or Failed. */
    public static boolean isActive(Pod pod) {
        if (pod.getMetadata() != null && pod.getMetadata().getDeletionTimestamp() != null) {
            return false;
        }
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
