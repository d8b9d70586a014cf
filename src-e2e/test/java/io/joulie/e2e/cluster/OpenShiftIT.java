package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.joulie.api.v1alpha1.Joulie;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * OpenShift's admission of the agent, on the real control plane: where the SecurityContextConstraints API exists
 * (here its CRD, as OpenShift 4 serves it), the operator, as its own ServiceAccount, creates the SCC
 * {@code joulie-agent} with exactly what the agent's pods ask for, owned by the {@code Joulie} resource; the agent's
 * ServiceAccount may use it. Without the API (every other scenario) it creates nothing and is refused nothing; when
 * the API goes away it stops asking.
 */
@Order(12)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OpenShiftIT extends ClusterScenario {
    static final String CRD = "securitycontextconstraints.security.openshift.io";
    static final ResourceDefinitionContext SCC = new ResourceDefinitionContext.Builder().withGroup("security.openshift.io")
            .withVersion("v1").withKind("SecurityContextConstraints").withPlural("securitycontextconstraints").withNamespaced(false)
            .build();

    @AfterAll
    static void removeTheApi() {
        if (cluster != null) {
            cluster.kubectl(null, "delete", "crd", CRD, "--ignore-not-found");
            cluster.kubectl(null, "patch", "joulie", "joulie", "--type=json", "-p",
                    "[{\"op\":\"remove\",\"path\":\"/spec/monitoring/labels\"}]");
        }
    }

    @Test
    @Order(1)
    void theOperatorCreatesTheAgentsSccWhereTheApiExists() {
        assertThat(cluster.kubectl(null, "get", "crd", "securitycontextconstraints.security.openshift.io").exit())
                .as("no SCC API before").isNotZero();
        cluster.kubectl("""
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                metadata: {name: securitycontextconstraints.security.openshift.io}
                spec:
                  group: security.openshift.io
                  scope: Cluster
                  names: {kind: SecurityContextConstraints, plural: securitycontextconstraints, singular: securitycontextconstraints}
                  versions:
                  - name: v1
                    served: true
                    storage: true
                    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
                """, "apply", "-f", "-").ok();
        cluster.kubectl(null, "wait", "--for=condition=Established", "--timeout=30s",
                "crd/securitycontextconstraints.security.openshift.io").ok();
        // a change of the Joulie resource makes its controllers look again
        cluster.kubectl(null, "patch", "joulie", "joulie", "--type=merge", "-p",
                "{\"spec\":{\"monitoring\":{\"labels\":{\"e2e\":\"openshift\"}}}}").ok();

        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            GenericKubernetesResource scc = cluster.admin.genericKubernetesResources(SCC).withName("joulie-agent").get();
            assertThat(scc).as("SCC joulie-agent").isNotNull();
            Map<String, Object> p = scc.getAdditionalProperties();
            assertThat(p).containsEntry("allowHostDirVolumePlugin", true).containsEntry("allowPrivilegedContainer", false)
                    .containsEntry("allowPrivilegeEscalation", false).containsEntry("allowHostNetwork", false)
                    .containsEntry("allowedCapabilities", List.of("SYS_RAWIO")).containsEntry("requiredDropCapabilities", List.of("ALL"));
            assertThat(p.get("volumes")).asInstanceOf(InstanceOfAssertFactories.LIST).contains("hostPath").doesNotContain("*");
            assertThat(scc.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
                assertThat(o.getKind()).isEqualTo("Joulie");
                assertThat(o.getUid()).isEqualTo(cluster.admin.resources(Joulie.class).withName("joulie").get().getMetadata().getUid());
            });
        });
        assertThat(cluster.kubectl(null, "auth", "can-i", "use", "securitycontextconstraints.security.openshift.io/joulie-agent",
                "--as=system:serviceaccount:" + RealCluster.NAMESPACE + ":" + RealCluster.AGENT_SA).output().strip().lines().toList().getLast())
                .as("the agent may use its SCC (after kubectl's warning that the resource is cluster-scoped)").isEqualTo("yes");
        assertThat(cluster.kubectl(null, "auth", "can-i", "use", "securitycontextconstraints.security.openshift.io/privileged",
                "--as=system:serviceaccount:" + RealCluster.NAMESPACE + ":" + RealCluster.AGENT_SA).output().strip().lines().toList().getLast())
                .as("and no other").isEqualTo("no");
    }

    /**
     * The API going away under a running operator (decision 194): the removal deletes the SCC, the operator's apply is
     * refused (the CRD is being deleted) or not found, and the operator stops managing the kind: no reconcile fails, and
     * it asks nothing more of the kind.
     */
    @Test
    @Order(2)
    void theOperatorStopsAskingForTheSccWhenItsApiGoesAway() {
        String operator = AuditLog.serviceAccount(RealCluster.NAMESPACE, RealCluster.OPERATOR_SA);
        Predicate<String> failed = l -> l.contains("could not be reconciled") && l.contains("securitycontextconstraints");
        long failedBefore = cluster.processLogLines().stream().filter(failed).count();
        Instant removed = Instant.now();
        cluster.kubectl(null, "delete", "crd", CRD).ok();
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
            List<AuditLog.Entry> asked = AuditLog.read(cluster.controlPlane.auditLog()).stream()
                    .filter(e -> e.user().equals(operator) && "securitycontextconstraints".equals(e.resource()) && e.at().isAfter(removed))
                    .toList();
            Instant last = asked.isEmpty() ? removed : asked.getLast().at();
            assertThat(Duration.between(last, Instant.now())).as("time since the operator last asked about SCCs: "
                    + asked.stream().map(e -> e.verb() + " " + e.code()).toList()).isGreaterThan(Duration.ofSeconds(15));
        });
        assertThat(cluster.processLogLines().stream().filter(failed).count()).as("reconciles that failed on the SCC").isEqualTo(failedBefore);
        assertThat(cluster.processLogLines()).as("the operator says why it stopped").anyMatch(l -> l.contains(
                "SecurityContextConstraints: the API server no longer serves this kind"));
    }
}
