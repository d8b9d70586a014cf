package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.openshift.api.model.SecurityContextConstraints;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/** The activation condition of the optional kinds: when it looks for a CRD, and what makes it look again (decision 194). */
class CrdPresentTest {
    static final String SCC = HasMetadata.getFullResourceName(SecurityContextConstraints.class);
    static final long MINUTE = Duration.ofMinutes(1).toNanos();

    final JoulieDependents.CrdPresent condition = new JoulieDependents.CrdPresent(Duration.ofMinutes(2));
    final List<String> reads = new ArrayList<>();

    @AfterEach
    void forget() {
        JoulieDependents.CrdPresent.forgetAll();
    }

    Function<String, CustomResourceDefinition> cluster(CustomResourceDefinition crd) {
        return name -> {
            reads.add(name);
            return crd;
        };
    }

    static CustomResourceDefinition crd(boolean deleting) {
        return new CustomResourceDefinitionBuilder().withNewMetadata().withName(SCC)
                .withDeletionTimestamp(deleting ? "2026-11-28T13:37:02Z" : null).endMetadata().build();
    }

    static KubernetesClientException refused(int code, String message) {
        Status status = new StatusBuilder().withCode(code).withMessage(message).build();
        return new KubernetesClientException(status);
    }

    @Test
    void aMissingCrdIsLookedForAgainWhenTheSpecChangesOrTheIntervalPasses() {
        assertThat(condition.present(SCC, 1L, 0, cluster(null))).isFalse();
        assertThat(condition.present(SCC, 1L, MINUTE, cluster(crd(false)))).as("within the interval, same spec").isFalse();
        assertThat(condition.present(SCC, 2L, MINUTE, cluster(crd(false)))).as("a new generation").isTrue();
        assertThat(reads).hasSize(2);
        forget();
        reads.clear();
        assertThat(condition.present(SCC, 1L, 0, cluster(null))).isFalse();
        assertThat(condition.present(SCC, 1L, 2 * MINUTE, cluster(crd(false)))).as("the interval passed").isTrue();
        assertThat(reads).hasSize(2);
    }

    @Test
    void aCrdFoundIsNotReadAgainUntilAnApplySaysItsApiIsGone() {
        assertThat(condition.present(SCC, 1L, 0, cluster(crd(false)))).isTrue();
        assertThat(condition.present(SCC, 2L, 10 * MINUTE, cluster(null))).as("a steady operator asks nothing").isTrue();
        assertThat(reads).hasSize(1);

        assertThat(JoulieDependents.CrdPresent.forgetIfGone(SecurityContextConstraints.class, refused(403,
                "securitycontextconstraints.security.openshift.io \"joulie-agent\" is forbidden: create not allowed while "
                        + "custom resource definition is terminating"))).as("a CRD being deleted is not a failure").isTrue();
        assertThat(JoulieDependents.CrdPresent.forgetIfGone(SecurityContextConstraints.class, refused(404,
                "the server could not find the requested resource"))).as("another dependent of the kind, same reconcile").isTrue();
        assertThat(condition.present(SCC, 2L, 10 * MINUTE, cluster(crd(true)))).as("a CRD being deleted serves nothing").isFalse();
        assertThat(reads).hasSize(2);
        assertThat(condition.present(SCC, 2L, 10 * MINUTE, cluster(null))).as("looked at once more, not at every reconcile")
                .isFalse();
        assertThat(reads).hasSize(2);
    }

    @Test
    void aRefusalByRbacAndFailuresOfBuiltInKindsStayFailures() {
        assertThat(condition.present(SCC, 1L, 0, cluster(crd(false)))).isTrue();
        KubernetesClientException rbac = refused(403, "securitycontextconstraints.security.openshift.io \"joulie-agent\" is "
                + "forbidden: User \"system:serviceaccount:joulie-system:joulie-operator\" cannot patch resource");
        KubernetesClientException notFound = refused(404, "namespaces \"joulie-system\" not found");
        assertThat(JoulieDependents.CrdPresent.forgetIfGone(SecurityContextConstraints.class, rbac)).isFalse();
        assertThat(JoulieDependents.CrdPresent.forgetIfGone(DaemonSet.class, notFound)).as("not an optional kind").isFalse();
        assertThat(condition.present(SCC, 1L, 0, cluster(null))).as("still found: no look again").isTrue();
        assertThat(reads).hasSize(1);
        // the answer may come wrapped
        assertThat(JoulieDependents.CrdPresent.apiGone(new RuntimeException(refused(404, "the server could not find the requested resource"))))
                .contains("is gone");
    }
}
