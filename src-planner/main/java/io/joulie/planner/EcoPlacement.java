package io.joulie.planner;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PreferredSchedulingTerm;
import io.joulie.api.v1alpha1.JoulieApi;

import java.util.List;
import java.util.Optional;

/**
 * The placement rule of eco-tolerant Pods (decision 209): a Pod that declares {@code joulie.io/workload-class: eco}
 * and says nothing itself about {@code joulie.io/power-profile} (no node selector on it, no required or preferred
 * node affinity term naming it) gets a preferred node affinity for {@code joulie.io/power-profile=eco} of weight
 * {@value #WEIGHT}. The operator's mutating admission webhook applies it to Pods as they are created; the twin applies
 * it to its jobs' Pods. Pure: no client, no clock.
 *
 * <p>A preference, never a constraint: the Pod keeps its class ({@link PodClassifier}); kube-scheduler puts it on an
 * eco node that fits, else anywhere it fits. With kube-scheduler's default plugin weights (NodeAffinity 2,
 * NodeResourcesFit 1) an eco node that fits always outscores one that is not eco.
 */
public final class EcoPlacement {
    /** The preferred term's weight: the highest kube-scheduler accepts. */
    public static final int WEIGHT = 100;

    private static final String ECO = io.joulie.api.v1alpha1.Profile.ECO.value();

    private EcoPlacement() {
    }

    /** The term this rule adds: prefer nodes labelled {@code joulie.io/power-profile=eco}. */
    public static PreferredSchedulingTerm ecoTerm() {
        return new PreferredSchedulingTerm(new NodeSelectorTerm(List.of(new NodeSelectorRequirement(
                JoulieApi.POWER_PROFILE_LABEL, "In", List.of(ECO))), null), WEIGHT);
    }

    /**
     * The Pod's affinity with the eco preference added, or empty when the rule leaves the Pod alone: it does not
     * declare eco, or it already names {@code joulie.io/power-profile} in its node selector or any node affinity term
     * (the Pod's own word wins, and a second call adds nothing).
     */
    public static Optional<Affinity> affinityWithEcoPreference(Pod pod) {
        if (pod == null || !PodClassifier.declaresEco(pod.getMetadata()) || namesPowerProfile(pod.getSpec())) {
            return Optional.empty();
        }
        Affinity current = pod.getSpec() == null ? null : pod.getSpec().getAffinity();
        AffinityBuilder b = current == null ? new AffinityBuilder() : new AffinityBuilder(current);
        if (current == null || current.getNodeAffinity() == null) {
            b.withNewNodeAffinity().addToPreferredDuringSchedulingIgnoredDuringExecution(ecoTerm()).endNodeAffinity();
        } else {
            b.editNodeAffinity().addToPreferredDuringSchedulingIgnoredDuringExecution(ecoTerm()).endNodeAffinity();
        }
        return Optional.of(b.build());
    }

    /**
     * Whether a namespace's default class ({@code joulie.io/workload-class=eco} on the Namespace, decision 213) applies
     * to the Pod: it carries no {@code joulie.io/workload-class} annotation (any value is the Pod's own word) and does not
     * name {@code joulie.io/power-profile} itself.
     */
    public static boolean takesNamespaceDefault(Pod pod) {
        return pod != null && (pod.getMetadata() == null || pod.getMetadata().getAnnotations() == null
                || !pod.getMetadata().getAnnotations().containsKey(JoulieApi.WORKLOAD_CLASS_ANNOTATION))
                && !namesPowerProfile(pod.getSpec());
    }

    /**
     * The Pod as a namespace with the eco default leaves it: when the default applies, a copy annotated
     * {@code joulie.io/workload-class: eco} (so that every reader, demand_sized_v1's demand included, sees it declared)
     * with the eco preference; otherwise what {@link #apply} makes of it.
     */
    public static Pod applyNamespaceDefault(Pod pod) {
        return apply(takesNamespaceDefault(pod) ? declaredEco(pod) : pod);
    }

    /** A copy of the Pod annotated {@code joulie.io/workload-class: eco}. */
    public static Pod declaredEco(Pod pod) {
        return new PodBuilder(pod).editOrNewMetadata()
                .addToAnnotations(JoulieApi.WORKLOAD_CLASS_ANNOTATION, JoulieApi.WORKLOAD_CLASS_ECO).endMetadata().build();
    }

    /** The Pod as the rule leaves it: a copy with the eco preference, or the Pod itself. */
    public static Pod apply(Pod pod) {
        return affinityWithEcoPreference(pod)
                .map(a -> new PodBuilder(pod).editOrNewSpec().withAffinity(a).endSpec().build())
                .orElse(pod);
    }

    /** Whether the Pod prefers eco nodes: a preferred node affinity term with {@code joulie.io/power-profile In [eco]}. */
    public static boolean prefersEco(PodSpec spec) {
        NodeAffinity na = spec == null || spec.getAffinity() == null ? null : spec.getAffinity().getNodeAffinity();
        if (na == null || na.getPreferredDuringSchedulingIgnoredDuringExecution() == null) {
            return false;
        }
        for (PreferredSchedulingTerm t : na.getPreferredDuringSchedulingIgnoredDuringExecution()) {
            if (t != null && t.getWeight() != null && t.getWeight() > 0 && t.getPreference() != null
                    && t.getPreference().getMatchExpressions() != null) {
                for (NodeSelectorRequirement r : t.getPreference().getMatchExpressions()) {
                    if (JoulieApi.POWER_PROFILE_LABEL.equals(r.getKey()) && "In".equals(r.getOperator())
                            && r.getValues() != null && r.getValues().contains(ECO)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Whether the spec names {@code joulie.io/power-profile} anywhere the scheduler reads it. */
    static boolean namesPowerProfile(PodSpec spec) {
        if (spec == null) {
            return false;
        }
        if (spec.getNodeSelector() != null && spec.getNodeSelector().containsKey(JoulieApi.POWER_PROFILE_LABEL)) {
            return true;
        }
        NodeAffinity na = spec.getAffinity() == null ? null : spec.getAffinity().getNodeAffinity();
        if (na == null) {
            return false;
        }
        if (na.getRequiredDuringSchedulingIgnoredDuringExecution() != null
                && na.getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms() != null) {
            for (NodeSelectorTerm t : na.getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms()) {
                if (names(t)) {
                    return true;
                }
            }
        }
        if (na.getPreferredDuringSchedulingIgnoredDuringExecution() != null) {
            for (PreferredSchedulingTerm t : na.getPreferredDuringSchedulingIgnoredDuringExecution()) {
                if (t != null && names(t.getPreference())) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean names(NodeSelectorTerm t) {
        return t != null && t.getMatchExpressions() != null
                && t.getMatchExpressions().stream().anyMatch(r -> r != null && JoulieApi.POWER_PROFILE_LABEL.equals(r.getKey()));
    }
}
