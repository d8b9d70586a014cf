package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.joulie.api.v1alpha1.Joulie;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * OpenShift's admission of the agent, on the real control plane: where the SecurityContextConstraints API exists
 * (here its CRD, as OpenShift 4 serves it), the operator, as its own ServiceAccount, creates the SCC
 * {@code joulie-agent} with exactly what the agent's pods ask for, owned by the {@code Joulie} resource; the agent's
 * ServiceAccount may use it. Without the API (every other scenario) it creates nothing and is refused nothing.
 */
@Order(12)
class OpenShiftIT extends ClusterScenario {
    static final ResourceDefinitionContext SCC = new ResourceDefinitionContext.Builder().withGroup("security.openshift.io")
            .withVersion("v1").withKind("SecurityContextConstraints").withPlural("securitycontextconstraints").withNamespaced(false)
            .build();

    @AfterAll
    static void removeTheApi() {
        if (cluster != null) {
            cluster.kubectl(null, "delete", "crd", "securitycontextconstraints.security.openshift.io", "--ignore-not-found");
            cluster.kubectl(null, "patch", "joulie", "joulie", "--type=json", "-p",
                    "[{\"op\":\"remove\",\"path\":\"/spec/monitoring/labels\"}]");
        }
    }

    @Test
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
}
