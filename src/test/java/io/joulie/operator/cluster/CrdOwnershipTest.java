package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.joulie.api.v1alpha1.ConditionReason;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class CrdOwnershipTest {
    static CustomResourceDefinition crd(String name, Map<String, String> annotations) {
        return new CustomResourceDefinitionBuilder().withNewMetadata().withName(name).withAnnotations(annotations).endMetadata().build();
    }

    static final Map<String, String> OURS = Map.of(CrdOwnership.MARKER, CrdOwnership.MARKER_VALUE);

    @Test
    void crdsWithTheMarkerAreOursAndMissingOnesAreNotForeign() {
        assertThat(CrdOwnership.problem(List.of(crd("joulies.joulie.io", OURS), crd("nodehardwares.joulie.io", OURS)))).isEmpty();
        assertThat(CrdOwnership.problem(List.of())).isEmpty();
    }

    @Test
    void aCrdWithoutTheMarkerOrWithAnotherValueIsForeignAndNamed() {
        var p = CrdOwnership.problem(List.of(crd("joulies.joulie.io", OURS), crd("nodehardwares.joulie.io", null)));
        assertThat(p).hasValueSatisfying(problem -> {
            assertThat(problem.reason()).isEqualTo(ConditionReason.ForeignCustomResourceDefinition);
            assertThat(problem.message()).startsWith("nodehardwares.joulie.io is installed without the annotation "
                    + "joulie.io/schema: joulie-io/joulie").contains("Coming from the Go Joulie").doesNotContain("joulies.joulie.io");
        });
        assertThat(CrdOwnership.problem(List.of(crd("nodehardwares.joulie.io", Map.of(CrdOwnership.MARKER, "joulie-k8s/joulie")),
                crd("telemetryprofiles.joulie.io", Map.of("app.kubernetes.io/part-of", "joulie")))))
                .hasValueSatisfying(problem -> assertThat(problem.message())
                        .startsWith("nodehardwares.joulie.io, telemetryprofiles.joulie.io are installed without"));
    }

    @Test
    void aForeignCrdIsTheMostImportantProblem() {
        assertThat(ConditionReason.ForeignCustomResourceDefinition.ordinal()).isZero();
    }
}
