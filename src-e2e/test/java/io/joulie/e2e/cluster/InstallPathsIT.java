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
 * them, the scheduler unable to place them); the Helm one runs with a set-based NODE_SELECTOR.
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
        RealCluster cluster = RealCluster.start(RealCluster.REPO.resolve("src-e2e/target/control-plane-" + path));
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

    @Test
    void helmChartWithASetBasedNodeSelector() throws IOException, InterruptedException {
        Path helm = InstallPathsTest.helm();
        Path home = Files.createDirectories(RealCluster.REPO.resolve("src-e2e/target/helm-home"));
        Map<String, String> env = Map.of("PATH", helm.getParent() + ":" + System.getenv("PATH"),
                "HELM_CACHE_HOME", home.resolve("cache").toString(), "HELM_CONFIG_HOME", home.resolve("config").toString(),
                "HELM_DATA_HOME", home.resolve("data").toString());
        // The documented command, with a set-based node selector as a value: it must reach the DaemonSet as node affinity.
        String command = documented("helm install ") + " --set-string 'operator.env.NODE_SELECTOR=joulie.io/managed in (true\\,yes)'";
        Installed i = install("helm", command, env, Map.of("joulie.io/managed", "yes"));
        try (RealCluster c = i.cluster()) {
            assertThat(i.namespace()).isEqualTo(RealCluster.NAMESPACE);
            works(i);
            assertThat(c.sh("helm status joulie", env).ok().output()).contains("STATUS: deployed");
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
        Path helm = InstallPathsTest.helm();
        Path home = Files.createDirectories(RealCluster.REPO.resolve("src-e2e/target/helm-home"));
        Map<String, String> env = Map.of("PATH", helm.getParent() + ":" + System.getenv("PATH"),
                "HELM_CACHE_HOME", home.resolve("cache").toString(), "HELM_CONFIG_HOME", home.resolve("config").toString(),
                "HELM_DATA_HOME", home.resolve("data").toString());
        try (RealCluster c = RealCluster.start(RealCluster.REPO.resolve("src-e2e/target/control-plane-foreign-crd"))) {
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
