package io.joulie.operator.manifests;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The committed {@code kubernetes/} must be exactly what the build generates. Runs after packaging
 * (failsafe), when {@code src/target/kubernetes/} exists. With {@code -Dmanifests.update=true}
 * it rewrites the committed copy instead.
 */
class GeneratedManifestsIT {

    @Test
    void committedManifestsMatchTheBuild() throws IOException {
        Path repo = Manifests.repository();
        Path committed = repo.resolve("kubernetes");
        Map<String, String> generated = Manifests.generate(repo.resolve("src/target/kubernetes"));

        if (Boolean.getBoolean("manifests.update")) {
            Files.createDirectories(committed);
            for (String stale : yamlFiles(committed)) {
                if (!generated.containsKey(stale)) {
                    Files.delete(committed.resolve(stale));
                }
            }
            for (var e : generated.entrySet()) {
                Files.createDirectories(committed.resolve(e.getKey()).getParent());
                Files.writeString(committed.resolve(e.getKey()), e.getValue());
            }
        }

        assertThat(yamlFiles(committed)).as("files in kubernetes/").isEqualTo(generated.keySet());
        for (var e : generated.entrySet()) {
            assertThat(Files.readString(committed.resolve(e.getKey())))
                    .as("kubernetes/%s drifted from the build; regenerate with ./mvnw verify -Dmanifests.update=true",
                            e.getKey())
                    .isEqualTo(e.getValue());
        }
    }

    @Test
    void committedKustomizationAndChartMatchTheBuild() throws IOException {
        Path repo = Manifests.repository();
        Map<String, String> generated = InstallPaths.generate(Manifests.generate(repo.resolve("src/target/kubernetes")));
        Path chart = repo.resolve(InstallPaths.CHART);
        if (Boolean.getBoolean("manifests.update")) {
            if (Files.isDirectory(chart)) {
                try (Stream<Path> s = Files.walk(chart)) {
                    for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                        Files.delete(p);
                    }
                }
            }
            for (var e : generated.entrySet()) {
                Files.createDirectories(repo.resolve(e.getKey()).getParent());
                Files.writeString(repo.resolve(e.getKey()), e.getValue());
            }
        }
        Set<String> committed = new java.util.TreeSet<>();
        try (Stream<Path> s = Files.walk(chart)) {
            s.filter(Files::isRegularFile).forEach(p -> committed.add(repo.relativize(p).toString()));
        }
        committed.add("kubernetes/" + InstallPaths.KUSTOMIZATION);
        assertThat(committed).as("files of the chart and the kustomize base").isEqualTo(new java.util.TreeSet<>(generated.keySet()));
        for (var e : generated.entrySet()) {
            assertThat(Files.readString(repo.resolve(e.getKey())))
                    .as("%s drifted from the build; regenerate with ./mvnw verify -Dmanifests.update=true", e.getKey())
                    .isEqualTo(e.getValue());
        }
    }

    @Test
    void operatorManifestCarriesProbesIdentityAndLeastPrivilege() {
        Map<String, String> generated = Manifests.generate(Manifests.repository().resolve("src/target/kubernetes"));
        List<?> objects = (List<?>) new KubernetesSerialization().unmarshal(generated.get("20-operator.yml"));

        Deployment deployment = only(objects, Deployment.class);
        assertThat(deployment.getMetadata().getNamespace()).isEqualTo(Manifests.NAMESPACE);
        Container c = deployment.getSpec().getTemplate().getSpec().getContainers().getFirst();
        assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/q/health/live");
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/q/health/ready");
        assertThat(c.getLivenessProbe().getHttpGet().getPort().getIntVal()).isEqualTo(9000);
        assertThat(c.getEnv()).extracting(EnvVar::getName).contains("POD_NAME", "POD_NAMESPACE");
        assertThat(c.getResources().getLimits()).containsKey("memory");

        List<ClusterRole> roles = objects.stream().filter(ClusterRole.class::isInstance).map(ClusterRole.class::cast).toList();
        assertThat(roles).flatExtracting(ClusterRole::getRules).allSatisfy(r -> {
            assertThat(r.getVerbs()).doesNotContain("*");
            assertThat(r.getResources()).doesNotContain("*");
            assertThat(r.getResources()).doesNotContain("secrets", "configmaps");
        });
        ClusterRole operator = roles.stream().filter(r -> r.getMetadata().getName().equals("joulie-operator")).findFirst().orElseThrow();
        assertThat(operator.getRules()).anySatisfy(r -> assertThat(r.getResources()).containsExactly("pods/eviction"));
        ClusterRole agent = roles.stream().filter(r -> r.getMetadata().getName().equals("joulie-agent")).findFirst().orElseThrow();
        assertThat(agent.getRules()).noneSatisfy(r -> assertThat(r.getResources()).contains("pods"));
        // A node's agent reads its Node and labels it, never lists or watches the Nodes (pool mode has its own role),
        // and only creates Events (about its Node's power changes), never reads them; the admission policy keeps its
        // writes, Events included, to its own node.
        assertThat(agent.getRules()).filteredOn(r -> r.getResources().contains("nodes")).singleElement()
                .satisfies(r -> assertThat(r.getVerbs()).containsExactlyInAnyOrder("get", "patch"));
        assertThat(agent.getRules()).filteredOn(r -> r.getResources().contains("events")).singleElement()
                .satisfies(r -> assertThat(r.getVerbs()).containsExactly("create"));
        ClusterRole pool = roles.stream().filter(r -> r.getMetadata().getName().equals("joulie-agent-pool")).findFirst().orElseThrow();
        assertThat(pool.getRules()).filteredOn(r -> r.getResources().contains("nodes")).singleElement()
                .satisfies(r -> assertThat(r.getVerbs()).as("pool agents watch Nodes and label none").containsExactlyInAnyOrder("get", "list", "watch"));
        assertThat(objects).filteredOn(o -> o instanceof ClusterRoleBinding b && b.getRoleRef().getName().equals("joulie-agent-pool"))
                .as("the pool role is for a ServiceAccount of the user's; the install binds it to nobody").isEmpty();
        assertThat(objects).filteredOn(o -> o instanceof RoleBinding || o instanceof ClusterRoleBinding)
                .allSatisfy(b -> assertThat(((HasMetadata) b).toString()).doesNotContain("name=view"));
        Map<String, Role> namespaced = objects.stream().filter(Role.class::isInstance).map(Role.class::cast)
                .collect(Collectors.toMap(r -> r.getMetadata().getName(), r -> r));
        assertThat(namespaced).containsOnlyKeys("joulie-operator-leader", "joulie-operator-install");
        assertThat(namespaced.values()).allSatisfy(r -> assertThat(r.getMetadata().getNamespace()).isEqualTo(Manifests.NAMESPACE));
        assertThat(namespaced.get("joulie-operator-leader").getRules()).singleElement()
                .satisfies(r -> assertThat(r.getResources()).containsExactly("leases"));
        // What a Joulie resource owns is namespaced: the operator may not touch DaemonSets, Services,
        // ServiceAccounts or ConfigMaps outside its own namespace.
        assertThat(namespaced.get("joulie-operator-install").getRules()).flatExtracting(r -> r.getResources())
                .containsExactlyInAnyOrder("daemonsets", "services", "configmaps", "servicemonitors", "prometheusrules", "events",
                        "secrets", "secrets");
        // Secrets: only the webhook's certificate, read and renewed by its name; made once (create takes no name)
        assertThat(namespaced.get("joulie-operator-install").getRules()).filteredOn(r -> r.getResources().contains("secrets"))
                .satisfiesExactlyInAnyOrder(r -> {
                    assertThat(r.getVerbs()).containsExactly("create");
                    assertThat(r.getResourceNames()).isEmpty();
                }, r -> {
                    assertThat(r.getVerbs()).containsExactlyInAnyOrder("get", "update");
                    assertThat(r.getResourceNames()).containsExactly("joulie-webhook-tls");
                });
        // the webhook's Service is the operator's; the Deployment exposes the webhook port
        assertThat(c.getPorts()).anySatisfy(p -> {
            assertThat(p.getName()).isEqualTo("webhook");
            assertThat(p.getContainerPort()).isEqualTo(9443);
        });
        // Events in its namespace are only read (why agent pods are refused); the operator writes its own cluster-wide.
        assertThat(namespaced.get("joulie-operator-install").getRules()).filteredOn(r -> r.getResources().contains("events"))
                .singleElement().satisfies(r -> assertThat(r.getVerbs()).containsExactlyInAnyOrder("get", "list", "watch"));
        // The operator's pod meets the Pod Security Standard restricted; the namespace admits the privileged agent.
        assertThat(deployment.getSpec().getTemplate().getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(deployment.getSpec().getTemplate().getSpec().getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        // Both ServiceAccounts come with the install; the operator creates none (docs/decisions.md).
        assertThat(objects).filteredOn(ServiceAccount.class::isInstance).extracting(o -> ((ServiceAccount) o).getMetadata())
                .extracting(m -> m.getNamespace() + "/" + m.getName())
                .containsExactlyInAnyOrder("joulie-system/joulie-operator", "joulie-system/joulie-agent");
        assertThat(deployment.getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo("joulie-operator");
        assertThat(roles).flatExtracting(ClusterRole::getRules).flatExtracting(r -> r.getResources())
                .doesNotContain("daemonsets", "serviceaccounts", "services", "servicemonitors", "prometheusrules");
        assertThat(roles).extracting(r -> r.getMetadata().getName()).containsExactlyInAnyOrder("joulie-operator", "joulie-agent",
                "joulie-agent-pool");
        // the operator may create and change only its own admission policy and binding, and its own SCC: every rule that
        // writes them names them (server-side apply authorizes its create with the name)
        assertThat(operator.getRules()).filteredOn(r -> (r.getApiGroups().contains("admissionregistration.k8s.io")
                        || r.getApiGroups().contains("security.openshift.io")) && r.getResourceNames().isEmpty())
                .hasSize(3).allSatisfy(r -> assertThat(r.getVerbs()).as("verbs not limited to a name: " + r.getResources())
                        .containsExactlyInAnyOrder("list", "watch"));
        assertThat(operator.getRules()).filteredOn(r -> r.getVerbs().contains("create") && r.getApiGroups().contains("admissionregistration.k8s.io"))
                .satisfiesExactlyInAnyOrder(
                        r -> assertThat(r.getResourceNames()).containsExactly("joulie-agent-node-scope"),
                        r -> assertThat(r.getResourceNames()).containsExactly("joulie-pod-placement"));
    }

    /** The policy that narrows the operator's Node writes ships before the operator, bound, for its ServiceAccount. */
    @Test
    void theOperatorsNodeWritesAreNarrowedByAnAdmissionPolicyShippedBeforeIt() {
        Map<String, String> generated = Manifests.generate(Manifests.repository().resolve("src/target/kubernetes"));
        assertThat(generated.keySet().stream().filter(f -> !f.contains("/")).sorted().toList())
                .containsSubsequence(Manifests.OPERATOR_SCOPE, "20-operator.yml");
        List<?> objects = (List<?>) new KubernetesSerialization().unmarshal(generated.get(Manifests.OPERATOR_SCOPE));
        ValidatingAdmissionPolicy policy = only(objects, ValidatingAdmissionPolicy.class);
        assertThat(policy.getSpec().getFailurePolicy()).isEqualTo("Fail");
        assertThat(policy.getSpec().getMatchConditions()).singleElement().satisfies(c -> assertThat(c.getExpression())
                .isEqualTo("request.userInfo.username == 'system:serviceaccount:" + Manifests.NAMESPACE + ":joulie-operator'"));
        assertThat(only(objects, ValidatingAdmissionPolicyBinding.class).getSpec()).satisfies(b -> {
            assertThat(b.getPolicyName()).isEqualTo(policy.getMetadata().getName());
            assertThat(b.getValidationActions()).containsExactly("Deny");
        });
    }

    private static <T> T only(List<?> objects, Class<T> type) {
        List<T> found = objects.stream().filter(type::isInstance).map(type::cast).toList();
        assertThat(found).as(type.getSimpleName()).hasSize(1);
        return found.getFirst();
    }

    private static Set<String> yamlFiles(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return Set.of();
        }
        try (Stream<Path> s = Files.walk(dir)) {
            return s.map(p -> dir.relativize(p).toString()).filter(n -> n.endsWith(".yml") || n.endsWith(".yaml"))
                    .collect(Collectors.toCollection(java.util.TreeSet::new));
        }
    }
}
