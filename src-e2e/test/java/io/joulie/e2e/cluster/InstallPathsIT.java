package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.e2e.InstallPathsTest;
import io.joulie.e2e.RepoFiles;
import io.joulie.harness.JavaApp;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Scenario 0, the three install paths, each on a fresh control plane of its own with the command docs/install.md
 * documents, run as written: {@code kubectl apply -f kubernetes/} (the README's line), the kustomize overlay example
 * ({@code kubectl apply -k}, another namespace and other images) and the Helm chart ({@code helm install}). Each must
 * give a working Joulie: the operator, started as the installed Deployment configures it (its environment) and with a
 * token of the installed ServiceAccount, makes the agent DaemonSet with the installed agent image, the DaemonSet
 * controller runs an agent on every managed node, a node is planned, and no request of the operator is refused.
 * The kustomize installation then shows the Joulie status naming why agent pods do not run (Pod Security refusing
 * them, the scheduler unable to place them); the Helm one runs with a set-based NODE_SELECTOR, and a second Helm
 * installation takes a values file (the operator's placement, a private registry, a pull secret) after the chart has
 * refused a misspelt key and a namespace whose Pod Security level would refuse the agents.
 */
@Order(0)
@ExtendWith(RealCluster.Extension.class)
class InstallPathsIT {
    static final Path INSTALL_DOC = RealCluster.REPO.resolve("docs/install.md");

    /** The first line of docs/install.md that starts with this: the documented command of an install path. */
    static String documented(String start) throws IOException {
        return RepoFiles.documented(INSTALL_DOC, start);
    }

    /** A Joulie installed by one path, its operator running. */
    record Installed(RealCluster cluster, String namespace, String agentImage, JavaApp operator) {
    }

    static Installed install(String path, String command, Map<String, String> env, Map<String, String> nodeLabels)
            throws IOException {
        return install(RealCluster.start(RealCluster.workDir("control-plane-" + path)), command, env, nodeLabels);
    }

    /** {@link #install(String, String, Map, Map)} on a control plane already started. */
    static Installed install(RealCluster cluster, String command, Map<String, String> env, Map<String, String> nodeLabels)
            throws IOException {
        RealCluster.Result r = cluster.sh(command, env);
        assertThat(r.exit()).as("'%s' on a fresh control plane:\n%s", command, r.output()).isZero();
        Deployment deployment = cluster.admin.apps().deployments().inAnyNamespace().list().getItems().stream()
                .filter(d -> d.getMetadata().getName().equals("joulie-operator")).findFirst().orElseThrow();
        String namespace = deployment.getMetadata().getNamespace();
        // The operator as its Deployment configures it: every literal variable of the installed container.
        Map<String, String> operatorEnv = new LinkedHashMap<>();
        for (EnvVar e : deployment.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv()) {
            if (e.getValue() != null) {
                operatorEnv.put(e.getName(), e.getValue());
            }
        }
        cluster.kwokNodes(List.of("kwok-0", "kwok-1"), nodeLabels);
        cluster.kwokNodes(List.of(RealCluster.UNMANAGED), Map.of());
        JavaApp operator = cluster.startOperator(namespace, "joulie-operator-0", operatorEnv, JavaApp.SMALL_JVM);
        return new Installed(cluster, namespace, operatorEnv.get("RELATED_IMAGE_AGENT"), operator);
    }

    /** Agents on both managed nodes with the installed image, Joulie Available, the nodes planned, nothing refused. */
    static void works(Installed i) {
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            DaemonSet ds = i.cluster().admin.apps().daemonSets().inNamespace(i.namespace()).withName("joulie-agent").get();
            assertThat(ds).as("DaemonSet joulie-agent in " + i.namespace()).isNotNull();
            assertThat(ds.getSpec().getTemplate().getSpec().getContainers().getFirst().getImage()).isEqualTo(i.agentImage());
            assertThat(ds.getStatus().getNumberReady()).as("agents ready").isEqualTo(2);
            assertThat(available(i)).isEqualTo("True");
            for (String node : List.of("kwok-0", "kwok-1")) {
                NodePowerProfile npp = i.cluster().admin.resources(NodePowerProfile.class)
                        .withName(JoulieApi.nodePowerProfileName(node)).get();
                assertThat(npp).as("NodePowerProfile of " + node).isNotNull();
                assertThat(npp.getStatus()).as("status of the profile of " + node).isNotNull();
            }
        });
        assertThat(i.cluster().admin.resources(NodePowerProfile.class).withName(JoulieApi.nodePowerProfileName(RealCluster.UNMANAGED))
                .get()).as("an unmanaged node is not planned").isNull();
        String operatorUser = AuditLog.serviceAccount(i.namespace(), RealCluster.OPERATOR_SA);
        assertThat(AuditLog.read(i.cluster().controlPlane.auditLog())).filteredOn(e -> e.user().equals(operatorUser))
                .as("the operator's requests").isNotEmpty()
                .allSatisfy(e -> assertThat(e.code()).as(e.toString()).isNotEqualTo(403));
    }

    static Optional<Condition> condition(Installed i, String type) {
        Joulie j = i.cluster().admin.resources(Joulie.class).withName("joulie").get();
        return j == null || j.getStatus() == null || j.getStatus().conditions() == null ? Optional.empty()
                : j.getStatus().conditions().stream().filter(c -> c.getType().equals(type)).findFirst();
    }

    static String available(Installed i) {
        return condition(i, "Available").map(Condition::getStatus).orElse("none");
    }

    @Test
    void plainManifests() throws IOException {
        Installed i = install("plain", RealCluster.INSTALL_COMMAND, Map.of(), Map.of("joulie.io/managed", "true"));
        try (RealCluster c = i.cluster()) {
            assertThat(i.namespace()).isEqualTo(RealCluster.NAMESPACE);
            works(i);
        }
    }

    @Test
    void kustomizeOverlayAndWhyAgentPodsDoNotRun() throws IOException {
        Installed i = install("kustomize", documented("kubectl apply -k "), Map.of(), Map.of("joulie.io/managed", "true"));
        try (RealCluster c = i.cluster()) {
            assertThat(i.namespace()).isEqualTo("power-management");
            assertThat(i.agentImage()).isEqualTo("registry.example.com/joulie/joulie-agent:0.1.0");
            works(i);

            // Pod Security refuses the agent where the namespace is not labelled privileged; the status says so.
            c.kubectl(null, "label", "namespace", i.namespace(), "pod-security.kubernetes.io/enforce=baseline", "--overwrite").ok();
            c.kubectl(null, "patch", "joulie", "joulie", "--type=merge", "-p", "{\"spec\":{\"agent\":{\"reconcileInterval\":\"25s\"}}}").ok();
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                Condition a = condition(i, "Available").orElseThrow();
                assertThat(a.getStatus()).isEqualTo("False");
                assertThat(a.getReason()).isEqualTo("AgentPodsRefused");
                assertThat(a.getMessage()).contains("cannot be created", "violates PodSecurity", "baseline", "hostPath");
                Condition d = condition(i, "Degraded").orElseThrow();
                assertThat(d.getStatus()).isEqualTo("True");
                assertThat(d.getReason()).isEqualTo("AgentPodsRefused");
            });

            // Admitted again, but asking more than any node has: the scheduler cannot place them; the status says so.
            c.kubectl(null, "label", "namespace", i.namespace(), "pod-security.kubernetes.io/enforce=privileged", "--overwrite").ok();
            c.kubectl(null, "patch", "joulie", "joulie", "--type=merge", "-p",
                    "{\"spec\":{\"agent\":{\"resources\":{\"requests\":{\"cpu\":\"100\"}}}}}").ok();
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                Condition a = condition(i, "Available").orElseThrow();
                assertThat(a.getReason()).isEqualTo("AgentPodsUnschedulable");
                assertThat(a.getMessage()).contains("cannot be scheduled", "Insufficient cpu");
            });

            c.kubectl(null, "patch", "joulie", "joulie", "--type=json", "-p", "[{\"op\":\"remove\",\"path\":\"/spec/agent/resources\"}]").ok();
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> assertThat(available(i)).isEqualTo("True"));
        }
    }

    /** helm on the PATH, its home in target/. */
    static Map<String, String> helmEnv() throws IOException, InterruptedException {
        Path helm = InstallPathsTest.helm();
        Path home = Files.createDirectories(RealCluster.REPO.resolve("src-e2e/target/helm-home"));
        return Map.of("PATH", helm.getParent() + ":" + System.getenv("PATH"),
                "HELM_CACHE_HOME", home.resolve("cache").toString(), "HELM_CONFIG_HOME", home.resolve("config").toString(),
                "HELM_DATA_HOME", home.resolve("data").toString());
    }

    /**
     * The documented command as written ({@code -n joulie-system --create-namespace}: Helm makes the namespace, the
     * chart makes none), with a set-based node selector as a value: it must reach the DaemonSet as node affinity. The
     * namespace Helm made carries no Pod Security label, and the control plane's default level (Kubernetes' own,
     * privileged) admits the agents.
     */
    @Test
    void helmChartInTheReleaseNamespaceWithASetBasedNodeSelector() throws IOException, InterruptedException {
        Map<String, String> env = helmEnv();
        String command = documented("helm install ") + " --set-string 'operator.env.NODE_SELECTOR=joulie.io/managed in (true\\,yes)'";
        assertThat(command).contains(" -n " + RealCluster.NAMESPACE + " --create-namespace");
        Installed i = install("helm", command, env, Map.of("joulie.io/managed", "yes"));
        try (RealCluster c = i.cluster()) {
            assertThat(i.namespace()).isEqualTo(RealCluster.NAMESPACE);
            assertThat(c.admin.namespaces().withName(RealCluster.NAMESPACE).get().getMetadata().getLabels())
                    .doesNotContainKey("pod-security.kubernetes.io/enforce");
            works(i);
            assertThat(c.sh("helm status joulie -n " + RealCluster.NAMESPACE, env).ok().output()).contains("STATUS: deployed");
        }
    }

    /**
     * A values file as an adopter writes one (docs/install.md, "Helm"): the operator on a tainted node pool of its own
     * (nodeSelector, tolerations), both images from a private registry with another tag, a pull secret for both. Into
     * a namespace made first, as docs/install.md says to on a cluster with a stricter default level. Before that, on
     * the same control plane: a misspelt key is refused (nothing installed, no namespace made), and a namespace that
     * enforces baseline stops the install with the chart's message.
     */
    @Test
    void helmValuesFilePlacesTheOperatorAndPullsFromAPrivateRegistry() throws IOException, InterruptedException {
        Map<String, String> env = helmEnv();
        Path values = Files.createDirectories(RealCluster.REPO.resolve("src-e2e/target")).resolve("helm-values-it.yaml");
        Files.writeString(values, """
                global:
                  imagePullSecrets: [{name: regcred}]
                operator:
                  image: {registry: registry.example.com, repository: joulie/joulie-operator, tag: "0.1.0-it"}
                  nodeSelector: {node-role.kubernetes.io/infra: ""}
                  tolerations: [{key: node-role.kubernetes.io/infra, operator: Exists, effect: NoSchedule}]
                agent:
                  image: {registry: registry.example.com, repository: joulie/joulie-agent, tag: "0.1.0-it"}
                """);
        String namespace = "power";
        String command = "helm install joulie charts/joulie -n " + namespace + " -f " + values;
        RealCluster cluster = RealCluster.start(RealCluster.workDir("control-plane-helm-values"));
        try (RealCluster c = cluster) {
            RealCluster.Result misspelt = c.sh(command + " --create-namespace --set operator.nodeSelectr.disk=ssd", env);
            assertThat(misspelt.exit()).as(misspelt.output()).isNotZero();
            assertThat(misspelt.output()).contains("at '/operator': additional properties 'nodeSelectr' not allowed");
            assertThat(c.admin.namespaces().withName(namespace).get()).as("no namespace made").isNull();
            assertThat(c.admin.apps().deployments().inAnyNamespace().list().getItems()).as("no operator installed").isEmpty();

            c.kubectl(null, "create", "namespace", namespace).ok();
            c.kubectl(null, "label", "namespace", namespace, "pod-security.kubernetes.io/enforce=baseline").ok();
            RealCluster.Result baseline = c.sh(command, env);
            assertThat(baseline.exit()).as(baseline.output()).isNotZero();
            assertThat(baseline.output()).contains("Namespace power enforces the Pod Security level baseline, which refuses "
                    + "Joulie's node agent");
            assertThat(c.admin.apps().deployments().inAnyNamespace().list().getItems()).as("no operator installed").isEmpty();

            c.kubectl(null, "label", "namespace", namespace, "pod-security.kubernetes.io/enforce=privileged", "--overwrite").ok();
            c.kwokNodes(List.of("infra-0"), Map.of("node-role.kubernetes.io/infra", ""));
            c.kubectl(null, "taint", "node", "infra-0", "node-role.kubernetes.io/infra=:NoSchedule").ok();
            Installed i = install(c, command, env, Map.of("joulie.io/managed", "true"));
            assertThat(i.namespace()).isEqualTo(namespace);
            assertThat(i.agentImage()).isEqualTo("registry.example.com/joulie/joulie-agent:0.1.0-it");
            var pod = c.admin.apps().deployments().inNamespace(namespace).withName("joulie-operator").get().getSpec().getTemplate().getSpec();
            assertThat(pod.getContainers().getFirst().getImage()).isEqualTo("registry.example.com/joulie/joulie-operator:0.1.0-it");
            assertThat(pod.getImagePullSecrets()).extracting(io.fabric8.kubernetes.api.model.LocalObjectReference::getName).containsExactly("regcred");
            // The scheduler puts the operator's Pod on the one node it selects and whose taint it tolerates
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(c.admin.pods().inNamespace(namespace).withLabel("app.kubernetes.io/name", "joulie-operator").list()
                            .getItems()).isNotEmpty().allSatisfy(p -> assertThat(p.getSpec().getNodeName()).isEqualTo("infra-0")));
            works(i);
            assertThat(c.admin.apps().daemonSets().inNamespace(namespace).withName("joulie-agent").get().getSpec().getTemplate()
                    .getSpec().getImagePullSecrets()).as("the agents' pull secrets, from global.imagePullSecrets")
                    .extracting(io.fabric8.kubernetes.api.model.LocalObjectReference::getName).containsExactly("regcred");
            assertThat(c.sh("helm status joulie -n " + namespace, env).ok().output()).contains("STATUS: deployed");
        }
    }

    /**
     * Another project's CRD of one of Joulie's names, as the Go Joulie's {@code nodehardwares.joulie.io} {@code v1alpha1}
     * (a stand-in schema of its own, without Joulie's marker): {@code helm install} stops with a message naming it and
     * the way forward, installs no operator, and leaves that CRD's schema as it was (Helm does not replace an existing
     * CRD; the chart's crd-check template refuses to go on).
     */
    @Test
    void helmRefusesAnotherProjectsCrdOfOneOfJoulieNames() throws IOException, InterruptedException {
        Map<String, String> env = helmEnv();
        try (RealCluster c = RealCluster.start(RealCluster.workDir("control-plane-foreign-crd"))) {
            c.kubectl("""
                    apiVersion: apiextensions.k8s.io/v1
                    kind: CustomResourceDefinition
                    metadata: {name: nodehardwares.joulie.io}
                    spec:
                      group: joulie.io
                      scope: Cluster
                      names: {kind: NodeHardware, plural: nodehardwares, singular: nodehardware}
                      versions:
                      - name: v1alpha1
                        served: true
                        storage: true
                        schema:
                          openAPIV3Schema:
                            type: object
                            properties:
                              spec:
                                type: object
                                properties:
                                  nodeName: {type: string}
                                  cpuVendor: {type: string}
                    """, "apply", "-f", "-").ok();
            c.kubectl(null, "wait", "--for=condition=Established", "--timeout=30s", "crd/nodehardwares.joulie.io").ok();
            String before = c.kubectl(null, "get", "crd", "nodehardwares.joulie.io", "-o", "jsonpath={.spec.versions}").ok().output();

            RealCluster.Result r = c.sh(documented("helm install "), env);

            assertThat(r.exit()).as("helm install over a foreign CRD:\n" + r.output()).isNotZero();
            assertThat(r.output()).contains("CustomResourceDefinition nodehardwares.joulie.io is installed without the annotation "
                    + "joulie.io/schema: joulie-io/joulie").contains("Coming from the Go Joulie");
            assertThat(c.kubectl(null, "get", "crd", "nodehardwares.joulie.io", "-o", "jsonpath={.spec.versions}").ok().output())
                    .as("the other project's schema").isEqualTo(before);
            assertThat(c.admin.apps().deployments().inAnyNamespace().list().getItems())
                    .as("no operator installed").noneMatch(d -> d.getMetadata().getName().equals("joulie-operator"));
        }
    }
}
