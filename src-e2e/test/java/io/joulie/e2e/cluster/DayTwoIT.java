package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.joulie.api.v1alpha1.ControlResult;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileStatus;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.e2e.RepoFiles;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Day 2 on the real control plane, after the other scenarios left agents' results behind: {@code kubectl joulie
 * status} shows per managed node, from its NodePowerProfile alone, what the operator plans (profile, state, cap), what the
 * agent answered (applied caps, results, the generation answered), the operator's verdict and the performance-only pods;
 * {@code --watch} redraws when the plan changes; {@code kubectl joulie must-gather} collects the resources, Events,
 * logs and metrics snapshots it can get, says what it could not, and reads no Secret.
 */
@Order(11)
class DayTwoIT extends ClusterScenario {
    static final String NAMESPACE = "e2e-day-two";
    static Path plugin;

    @BeforeAll
    static void build() throws Exception {
        plugin = built();
        cluster.namespace(NAMESPACE);
    }

    @AfterAll
    static void clean() {
        removeNamespaceAndPolicy(NAMESPACE);
    }

    /** The plugin, as kubectl-joulie/build.sh builds it (its unit tests first) or finds it cached. */
    static Path built() throws IOException, InterruptedException {
        return RepoFiles.built(RealCluster.REPO, "kubectl-joulie/build.sh", "");
    }

    /** kubectl joulie, as kubectl runs a plugin it finds on the PATH. */
    static RealCluster.Result kubectlJoulie(String... args) {
        return cluster.sh("kubectl joulie " + String.join(" ", args), pathWithPlugin());
    }

    static Map<String, String> pathWithPlugin() {
        return Map.of("PATH", plugin.getParent() + ":" + RealCluster.REPO.resolve("kubectl-joulie") + ":" + System.getenv("PATH"));
    }

    /** The table's rows by node: the columns split on runs of two or more spaces. */
    static Map<String, String[]> table(String output) {
        Map<String, String[]> rows = new HashMap<>();
        boolean body = false;
        for (String line : output.lines().toList()) {
            if (line.startsWith("NODE ")) {
                body = true;
            } else if (body && !line.isBlank() && !line.startsWith("---") && !line.startsWith("Joulie:")) {
                String[] cols = line.split("\\s{2,}", 13);
                rows.put(cols[0], cols);
            } else if (line.startsWith("---") || line.startsWith("Joulie:")) {
                body = false;
            }
        }
        return rows;
    }

    static Pod pod(String name, Map<String, String> nodeSelector) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace(NAMESPACE).endMetadata()
                .withNewSpec().withNodeSelector(nodeSelector).addNewContainer().withName("c").withImage("busybox").endContainer()
                .endSpec().build();
    }

    @Test
    void statusShowsWhatThePlanTheAgentAndThePodsSay() {
        cluster.policy("{\"type\":\"static_partition\",\"staticHpFrac\":0.5}");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).until(() ->
                cluster.states().size() == RealCluster.MANAGED.size() && cluster.states().values().contains("ActivePerformance"));
        cluster.admin.pods().resource(pod("perf", Map.of(JoulieApi.POWER_PROFILE_LABEL, "performance"))).create();
        cluster.admin.pods().resource(pod("any", Map.of())).create();
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.admin.pods().inNamespace(NAMESPACE).withName("perf").get()
                .getSpec().getNodeName() != null);
        String perfNode = cluster.admin.pods().inNamespace(NAMESPACE).withName("perf").get().getSpec().getNodeName();

        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            RealCluster.Result r = kubectlJoulie("status");
            assertThat(r.exit()).as(r.output()).isZero();
            assertThat(r.output()).startsWith("Joulie: Available=True (AllAgentsReady)").contains("policy static_partition");
            Map<String, String[]> rows = table(r.output());
            assertThat(rows.keySet()).containsAll(RealCluster.MANAGED).doesNotContain(RealCluster.UNMANAGED);
            for (String node : RealCluster.MANAGED) {
                NodePowerProfile npp = cluster.admin.resources(NodePowerProfile.class).withName(JoulieApi.nodePowerProfileName(node)).get();
                String[] row = rows.get(node);
                assertThat(row[1]).as("profile of " + node).isEqualTo(npp.getSpec().profile().name().toLowerCase());
                assertThat(row[2]).as("state of " + node).isEqualTo(npp.getStatus().state().name());
                var cpuCap = npp.getSpec().cpu();
                assertThat(row[4]).as("CPU cap of " + node).isEqualTo(cpuCap.packagePowerCapWatts() != null
                        ? trim(cpuCap.packagePowerCapWatts()) + " W" : trim(cpuCap.packagePowerCapPercent()) + " %");
                var gpuCap = npp.getSpec().gpu();
                assertThat(row[6]).as("GPU cap of " + node).isEqualTo(gpuCap == null ? "-" : gpuCap.powerCapWattsPerGpu() != null
                        ? trim(gpuCap.powerCapWattsPerGpu()) + " W" : trim(gpuCap.powerCapPercent()) + " %");
                var applied = npp.getStatus().applied();
                var cpu = applied == null ? null : applied.cpu();
                var gpu = applied == null ? null : applied.gpu();
                assertThat(row[5]).as("applied cap of " + node).isEqualTo(cpu == null || cpu.watts() == null ? "-" : trim(cpu.watts()));
                List<Double> boards = gpu == null || gpu.boards() == null ? List.of()
                        : gpu.boards().stream().map(NodePowerProfileStatus.Device::watts).toList();
                assertThat(row[7]).as("applied GPU caps of " + node).isEqualTo(boards.isEmpty() ? "-" : boards.size() == 1
                        ? trim(boards.getFirst()) : boards.stream().distinct().count() == 1 ? boards.size() + "x" + trim(boards.getFirst())
                        : String.join(",", boards.stream().map(DayTwoIT::trim).toList()));
                List<String> results = new java.util.ArrayList<>();
                for (NodePowerProfileStatus.Family family : new NodePowerProfileStatus.Family[]{cpu, gpu}) {
                    boolean asked = family == cpu ? npp.getSpec().cpu() != null : npp.getSpec().gpu() != null;
                    if (family != null && (family.result() != ControlResult.NONE || asked)) {
                        results.add(family.result().name().toLowerCase() + "/" + family.backend());
                    }
                }
                assertThat(row[8]).as("agent results of " + node).isEqualTo(results.isEmpty() ? "-" : String.join(" ", results));
                assertThat(row[9]).as("answered the generation in force, " + node).isEqualTo(applied == null ? "no"
                        : applied.generation() == npp.getMetadata().getGeneration().longValue() ? "yes"
                        : "no (gen " + applied.generation() + "/" + npp.getMetadata().getGeneration() + ")");
                assertThat(row[10]).as("the operator's verdict on " + node).isEqualTo(npp.getStatus().agent() == null ? "-"
                        : npp.getStatus().agent().name());
                assertThat(row[11]).as("performance-only pods on " + node).isEqualTo(node.equals(perfNode) ? "1" : "0");
                assertThat(row[12]).as("why " + node).startsWith(npp.getStatus().reason());
            }
        });
        RealCluster.Result one = kubectlJoulie("status", "--node", perfNode);
        assertThat(table(one.ok().output())).containsOnlyKeys(perfNode);
    }

    static String trim(double watts) {
        return watts == Math.rint(watts) ? Long.toString((long) watts) : Double.toString(watts);
    }

    @Test
    void watchRedrawsWhenThePlanChanges() throws Exception {
        cluster.policy("{\"type\":\"static_partition\",\"staticHpFrac\":1.0}");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).until(() ->
                cluster.states().values().stream().allMatch("ActivePerformance"::equals));
        Path out = cluster.controlPlane.workDir().resolve("kubectl-joulie-watch.out");
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", "exec kubectl joulie status --watch").directory(RealCluster.REPO.toFile())
                .redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().putAll(pathWithPlugin());
        pb.environment().put("KUBECONFIG", cluster.controlPlane.adminKubeconfig().toString());
        Process watch = pb.start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(out).contains("ActivePerformance"));
            cluster.policy("{\"type\":\"static_partition\",\"staticHpFrac\":0.0}");
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                String text = Files.readString(out);
                String last = text.substring(text.lastIndexOf("--- "));
                // every node leaves performance: to eco, or draining while a performance-only pod runs there
                assertThat(table(last).values()).as("the last drawing:\n%s", last)
                        .filteredOn(row -> RealCluster.MANAGED.contains(row[0])).hasSize(RealCluster.MANAGED.size())
                        .allSatisfy(row -> assertThat(row[2]).isIn("ActiveEco", "DrainingPerformance"))
                        .anySatisfy(row -> assertThat(row[1]).isEqualTo("eco"));
                assertThat(text.split("\n--- ").length).as("drawings").isGreaterThan(1);
            });
            assertThat(watch.isAlive()).as("--watch keeps running").isTrue();
        } finally {
            watch.destroy();
            watch.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void mustGatherWithoutAClusterSaysSoAndFails() throws Exception {
        Path kubeconfig = cluster.controlPlane.workDir().resolve("unreachable.kubeconfig");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters: [{name: gone, cluster: {server: "https://127.0.0.1:1"}}]
                users: [{name: nobody, user: {token: none}}]
                contexts: [{name: gone, context: {cluster: gone, user: nobody}}]
                current-context: gone
                """);
        Path dest = cluster.controlPlane.workDir().resolve("must-gather-no-cluster");
        RealCluster.Result r = cluster.sh("KUBECONFIG=" + kubeconfig + " kubectl joulie must-gather --dest " + dest, pathWithPlugin());
        assertThat(r.exit()).as(r.output()).isEqualTo(1);
        assertThat(r.output()).contains("cannot reach the cluster, nothing collected");
        assertThat(dest).doesNotExist();
        assertThat(Path.of(dest + ".tar.gz")).doesNotExist();
    }

    @Test
    void mustGatherCollectsWhatItCanAndSaysWhatItCouldNot() throws Exception {
        Path dest = cluster.controlPlane.workDir().resolve("must-gather");
        RealCluster.Result r = kubectlJoulie("must-gather", "--dest", dest.toString());
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output().strip()).endsWith(dest + ".tar.gz");
        assertThat(Path.of(dest + ".tar.gz")).isNotEmptyFile();

        assertThat(Files.readString(dest.resolve("joulie/joulies.yaml"))).contains("kind: Joulie", "name: joulie", "conditions:");
        assertThat(Files.readString(dest.resolve("joulie/nodepowerprofiles.yaml")))
                .contains(RealCluster.MANAGED.stream().map(JoulieApi::nodePowerProfileName).toArray(String[]::new));
        String[] telemetry = cluster.admin.resources(TelemetryProfile.class).list().getItems().stream()
                .map(tp -> "name: " + tp.getMetadata().getName()).toArray(String[]::new);
        assertThat(Files.readString(dest.resolve("joulie/telemetryprofiles.yaml")))
                .contains(telemetry.length == 0 ? new String[] {"items: []"} : telemetry);
        assertThat(Files.readString(dest.resolve("joulie/status.txt"))).contains("NODE", "PROFILE", RealCluster.MANAGED.getFirst());
        assertThat(Files.readString(dest.resolve("cluster/crds.yaml"))).contains("joulies.joulie.io");
        assertThat(Files.readString(dest.resolve("namespace/workloads.yaml"))).contains("kind: DaemonSet", "name: joulie-agent");
        assertThat(Files.readString(dest.resolve("namespace/namespace.yaml"))).contains("pod-security.kubernetes.io/enforce: privileged");
        assertThat(Files.readString(dest.resolve("events/default.yaml"))).contains("PowerStateChanged");
        assertThat(Files.readString(dest.resolve("rbac/admission-policy.yaml"))).contains("joulie-agent-node-scope",
                "joulie-operator-scope");
        assertThat(Files.readString(dest.resolve("cluster/crds.yaml"))).contains("nodehardwares.joulie.io");
        assertThat(Files.readString(dest.resolve("joulie/nodehardwares.yaml"))).contains("kind: List").doesNotStartWith("# could not");
        assertThat(dest.resolve("openshift")).as("no SCC API on this cluster: nothing asked").doesNotExist();

        // every agent pod has a log file and a metrics file: what kubectl got, or what it could not get and why (kwok's
        // pods have no kubelet to serve logs, nor a network the API server's proxy reaches)
        List<String> agentPods = cluster.admin.pods().inNamespace(RealCluster.NAMESPACE).withLabel("app.kubernetes.io/name", "joulie-agent")
                .list().getItems().stream().map(p -> p.getMetadata().getName()).toList();
        assertThat(agentPods).isNotEmpty();
        String errors = Files.readString(dest.resolve("errors.txt"));
        for (String pod : agentPods) {
            assertThat(dest.resolve("logs/" + pod + ".log")).isNotEmptyFile();
            Path metrics = dest.resolve("metrics/" + pod + ".prom");
            assertThat(metrics).isNotEmptyFile();
            if (Files.readString(metrics).startsWith("# could not collect")) {
                assertThat(errors).contains("metrics/" + pod + ".prom");
            }
        }
        List<String> secrets = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dest)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                if (Files.readString(f).contains("kind: Secret")) {
                    secrets.add(f.toString());
                }
            }
        }
        assertThat(secrets).as("files holding a Secret").isEmpty();
    }
}
