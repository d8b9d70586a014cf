package io.joulie.planner;

import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PreferredSchedulingTerm;
import io.joulie.api.v1alpha1.JoulieApi;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class EcoPlacementTest {
    static PodBuilder pod(String workloadClass) {
        PodBuilder b = new PodBuilder().withNewMetadata().withName("p").endMetadata().withNewSpec()
                .addNewContainer().withName("c").withImage("i").endContainer().endSpec();
        if (workloadClass != null) {
            b.editMetadata().addToAnnotations(JoulieApi.WORKLOAD_CLASS_ANNOTATION, workloadClass).endMetadata();
        }
        return b;
    }

    @Test
    void aDeclaredPodGetsTheEcoPreferenceAndKeepsItsClass() {
        Pod in = pod("eco").build();
        Pod out = EcoPlacement.apply(in);

        assertThat(EcoPlacement.prefersEco(in.getSpec())).isFalse();
        assertThat(EcoPlacement.prefersEco(out.getSpec())).isTrue();
        PreferredSchedulingTerm t = out.getSpec().getAffinity().getNodeAffinity()
                .getPreferredDuringSchedulingIgnoredDuringExecution().get(0);
        assertThat(t.getWeight()).isEqualTo(100);
        assertThat(t.getPreference().getMatchExpressions().get(0).getKey()).isEqualTo(JoulieApi.POWER_PROFILE_LABEL);
        assertThat(t.getPreference().getMatchExpressions().get(0).getValues()).containsExactly("eco");
        assertThat(PodClassifier.classify(out)).isEqualTo(PodClass.UNCONSTRAINED);
        // applying it again changes nothing
        assertThat(EcoPlacement.affinityWithEcoPreference(out)).isEmpty();
    }

    @Test
    void aNamespaceDefaultDeclaresEcoForPodsThatSayNothingThemselves() {
        Pod bare = pod(null).build();
        assertThat(EcoPlacement.takesNamespaceDefault(bare)).isTrue();
        Pod out = EcoPlacement.applyNamespaceDefault(bare);
        assertThat(PodClassifier.declaresEco(out.getMetadata())).as("demand_sized_v1 counts it as declared").isTrue();
        assertThat(EcoPlacement.prefersEco(out.getSpec())).isTrue();
        assertThat(bare.getMetadata().getAnnotations()).as("the input is not changed").isNullOrEmpty();
        // once annotated, the default no longer applies, and the rule adds nothing more
        assertThat(EcoPlacement.takesNamespaceDefault(out)).isFalse();
        assertThat(EcoPlacement.applyNamespaceDefault(out)).isEqualTo(out);

        // the Pod's own word: any workload class, or the power profile named in its spec
        Pod standard = pod("standard").build();
        assertThat(EcoPlacement.takesNamespaceDefault(standard)).isFalse();
        assertThat(EcoPlacement.applyNamespaceDefault(standard)).isSameAs(standard);
        Pod performance = pod(null).editSpec().withNodeSelector(Map.of(JoulieApi.POWER_PROFILE_LABEL, "performance")).endSpec().build();
        assertThat(EcoPlacement.takesNamespaceDefault(performance)).isFalse();
        assertThat(EcoPlacement.applyNamespaceDefault(performance)).isSameAs(performance);
        // an eco-declared Pod in such a namespace is as anywhere else
        Pod eco = pod("eco").build();
        assertThat(EcoPlacement.takesNamespaceDefault(eco)).isFalse();
        assertThat(EcoPlacement.applyNamespaceDefault(eco)).isEqualTo(EcoPlacement.apply(eco));
    }

    @Test
    void podsThatDoNotDeclareEcoAreLeftAlone() {
        assertThat(EcoPlacement.affinityWithEcoPreference(pod(null).build())).isEmpty();
        assertThat(EcoPlacement.affinityWithEcoPreference(pod("performance").build())).isEmpty();
        assertThat(EcoPlacement.affinityWithEcoPreference(pod(" ECO ").build())).isPresent();
    }

    @Test
    void aPodThatNamesThePowerProfileItselfKeepsItsOwnWord() {
        Pod selector = pod("eco").editSpec().withNodeSelector(Map.of(JoulieApi.POWER_PROFILE_LABEL, "performance")).endSpec().build();
        Pod required = pod("eco").editSpec().withAffinity(new AffinityBuilder().withNewNodeAffinity()
                .withNewRequiredDuringSchedulingIgnoredDuringExecution().addNewNodeSelectorTerm().addNewMatchExpression()
                .withKey(JoulieApi.POWER_PROFILE_LABEL).withOperator("NotIn").withValues("eco").endMatchExpression()
                .endNodeSelectorTerm().endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().build()).endSpec().build();
        Pod preferred = pod("eco").editSpec().withAffinity(new AffinityBuilder().withNewNodeAffinity()
                .addNewPreferredDuringSchedulingIgnoredDuringExecution().withWeight(5).withNewPreference().addNewMatchExpression()
                .withKey(JoulieApi.POWER_PROFILE_LABEL).withOperator("In").withValues("performance").endMatchExpression()
                .endPreference().endPreferredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().build()).endSpec().build();

        assertThat(EcoPlacement.affinityWithEcoPreference(selector)).isEmpty();
        assertThat(EcoPlacement.affinityWithEcoPreference(required)).isEmpty();
        assertThat(EcoPlacement.affinityWithEcoPreference(preferred)).isEmpty();
        assertThat(EcoPlacement.prefersEco(preferred.getSpec())).isFalse();
    }

    @Test
    void otherAffinityIsKeptBesideTheNewTerm() {
        Pod in = pod("eco").editSpec().withAffinity(new AffinityBuilder().withNewNodeAffinity()
                .addNewPreferredDuringSchedulingIgnoredDuringExecution().withWeight(7).withNewPreference().addNewMatchExpression()
                .withKey("zone").withOperator("In").withValues("a").endMatchExpression().endPreference()
                .endPreferredDuringSchedulingIgnoredDuringExecution().endNodeAffinity()
                .withNewPodAntiAffinity().endPodAntiAffinity().build()).endSpec().build();
        Pod podAffinityOnly = pod("eco").editSpec().withAffinity(new AffinityBuilder().withNewPodAffinity().endPodAffinity()
                .build()).endSpec().build();

        List<PreferredSchedulingTerm> terms = EcoPlacement.apply(in).getSpec().getAffinity().getNodeAffinity()
                .getPreferredDuringSchedulingIgnoredDuringExecution();
        assertThat(terms).hasSize(2);
        assertThat(terms.get(0).getWeight()).isEqualTo(7);
        assertThat(terms.get(1)).isEqualTo(EcoPlacement.ecoTerm());
        assertThat(EcoPlacement.apply(in).getSpec().getAffinity().getPodAntiAffinity()).isNotNull();
        assertThat(EcoPlacement.apply(podAffinityOnly).getSpec().getAffinity().getPodAffinity()).isNotNull();
        assertThat(EcoPlacement.prefersEco(EcoPlacement.apply(podAffinityOnly).getSpec())).isTrue();
    }
}
