package io.joulie.sim.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodeHardware;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.planner.PodClass;
import io.joulie.sim.Baseline;
import io.joulie.sim.JobSpec;
import io.joulie.sim.RunResult;
import io.joulie.sim.SimConfig;
import io.joulie.sim.Simulation;
import io.joulie.sim.Workload;
import io.joulie.testkit.ServerSideApplyDispatcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Cluster mode end to end: the packaged operator and agent (pool mode) against the embedded API server, the
 * twin's HTTP endpoints and Pods, time-compressed 60x.
 */
class ClusterModeIT {
    static final Path REPO = Path.of(System.getProperty("repository.root", "."));

    @Test
    void theRealOperatorAndAgentDriveTheTwinWithoutViolations(@TempDir Path logs) throws Exception {
        // 3 nodes, 24 short jobs; 3 performance pods per performance node, so the queue moves queue_aware_v1
        SimConfig config = SimConfig.of(Map.of("cluster.nodes", "3", "workload.jobs", "24", "workload.workMax", "900",
                "planner.queueHpMin", "1", "planner.queueHpMax", "3", "planner.queuePerfPerHpNode", "3"));
        List<JobSpec> jobs = Workload.of(config.workload());
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        RunResult r;
        Map<String, Double> caps;
        try (ClusterControlPlane cm = new ClusterControlPlane(config,
                new ClusterControlPlane.Options(REPO, Baseline.C, 60, logs, new PrintStream(printed, true, StandardCharsets.UTF_8)))) {
            Simulation sim = new Simulation(config, jobs, Baseline.C, cm);
            cm.start(Duration.ofSeconds(150));
            caps = cm.caps();
            r = sim.run();
        }
        String decisions = printed.toString(StandardCharsets.UTF_8);
        // round(3 × 0.7) = 2 performance nodes with an empty queue: the operator's first plan drains node-0001 for a
        // tick (performance cap), then commits it eco; the agent applies each
        assertThat(caps).hasSize(3);
        assertThat(decisions).contains("node-0001  new -> DrainingPerformance (cap 500 W): selected for eco by queue_aware_v1; "
                + "settling: eco once no performance-only pod has been seen for ");
        assertThat(decisions).contains("node-0001  DrainingPerformance -> ActiveEco (cap 260 W): selected for eco by queue_aware_v1");
        assertThat(r.jobsCompleted()).isEqualTo(24);
        assertThat(r.violationSeconds()).isZero();
        assertThat(r.completionTimes().get(PodClass.PERFORMANCE)).isNotEmpty();
        assertThat(r.series()).anySatisfy(s -> assertThat(s.ecoNodes()).isPositive());
        assertThat(r.energyKWh()).isPositive();
    }

    /**
     * GPU nodes in cluster mode: the Node advertises its boards (allocatable {@code nvidia.com/gpu}, tainted for GPU jobs)
     * and the twin's telemetry describes them, so the operator asks them for the eco GPU cap (60 %); the agent resolves
     * it on the described boards (240 W on an A100) and posts gpu.set_power_cap_watts, which caps the simulated boards.
     * Run against a second mock server given by kubeconfig, so that the test can read the Nodes the twin made.
     */
    @Test
    void theRealAgentCapsTheBoardsOfGpuNodes(@TempDir Path dir) throws Exception {
        KubernetesMockServer cluster = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(), true);
        cluster.init();
        ServerSideApplyDispatcher.install(cluster);
        try (KubernetesClient admin = cluster.createClient()) {
            Path kubeconfig = kubeconfig(dir, cluster);
            // an R640 and an 8-board A100 server, both eco (static_partition with no performance node, no performance job)
            SimConfig config = SimConfig.of(Map.ofEntries(Map.entry("cluster.nodes", "2"),
                    Map.entry("cluster.types", "dell-r640:0.5,gpu-a100x8:0.5"), Map.entry("workload.jobs", "16"),
                    Map.entry("workload.workMax", "900"), Map.entry("workload.gpuShare", "0.5"), Map.entry("workload.gpuWorkMin", "600"),
                    Map.entry("workload.gpuWorkMax", "1800"), Map.entry("workload.performanceShare", "0"),
                    Map.entry("planner.staticHpFrac", "0")));
            List<JobSpec> jobs = Workload.of(config.workload());
            assertThat(jobs).anySatisfy(j -> assertThat(j.usesGpus()).isTrue());
            RunResult r;
            Map<String, Double> gpuCaps;
            try (ClusterControlPlane cm = new ClusterControlPlane(config, new ClusterControlPlane.Options(REPO, Baseline.B, 60,
                    dir.resolve("logs"), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), kubeconfig))) {
                Simulation sim = new Simulation(config, jobs, Baseline.B, cm);
                cm.start(Duration.ofSeconds(150));
                Node gpuNode = admin.nodes().withName("node-0002").get();
                assertThat(gpuNode.getStatus().getAllocatable()).containsEntry("nvidia.com/gpu", new Quantity("8"));
                assertThat(gpuNode.getSpec().getTaints()).singleElement()
                        .satisfies(t -> assertThat(t.getKey() + ":" + t.getEffect()).isEqualTo("nvidia.com/gpu:NoSchedule"));
                assertThat(admin.nodes().withName("node-0001").get().getStatus().getAllocatable()).doesNotContainKey("nvidia.com/gpu");
                r = sim.run();
                gpuCaps = cm.gpuCaps();
                // the limit in force on the simulated boards, as the agent reads it back from the twin's telemetry into
                // the node's NodeHardware
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                List<Double> limits = List.of();
                while (System.nanoTime() < deadline) {
                    NodeHardware nhw = admin.resources(NodeHardware.class).withName(JoulieApi.nodePowerProfileName("node-0002")).get();
                    limits = nhw == null || nhw.getStatus() == null || nhw.getStatus().gpu() == null ? List.of()
                            : nhw.getStatus().gpu().devices().stream().map(NodeHardwareStatus.GpuBoard::limitWatts).toList();
                    if (limits.size() == 8 && limits.stream().allMatch(w -> w != null && w == 240.0)) {
                        break;
                    }
                    Thread.sleep(200);
                }
                assertThat(limits).as("every simulated board runs at the agent's 240 W").hasSize(8).containsOnly(240.0);
            }
            assertThat(gpuCaps).as("the GPU node only, at 60 % of 400 W").containsExactly(Map.entry("node-0002", 240.0));
            assertThat(r.jobsCompleted()).isEqualTo(16);
            assertThat(r.violationSeconds()).isZero();
            assertThat(r.gpuEnergyKWh()).isPositive();
        } finally {
            cluster.destroy();
        }
    }

    private static Path kubeconfig(Path dir, KubernetesMockServer cluster) throws java.io.IOException {
        Path kubeconfig = dir.resolve("kubeconfig");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters: [{name: test, cluster: {server: "%s", insecure-skip-tls-verify: true}}]
                users: [{name: admin, user: {token: secret}}]
                contexts: [{name: test, context: {cluster: test, user: admin, namespace: default}}]
                current-context: test
                """.formatted(cluster.url("/")));
        return kubeconfig;
    }

    /**
     * --kubeconfig: the same run against an API server the twin did not start (here a second mock server,
     * standing in for a real cluster). The twin refuses to reuse Nodes it did not create, and removes its own
     * objects at the end while leaving the cluster's other objects alone.
     */
    @Test
    void aClusterGivenByKubeconfigIsUsedAndLeftAsItWas(@TempDir Path dir) throws Exception {
        KubernetesMockServer cluster = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(), true);
        cluster.init();
        ServerSideApplyDispatcher.install(cluster);
        try (KubernetesClient admin = cluster.createClient()) {
            Path kubeconfig = kubeconfig(dir, cluster);
            admin.pods().inNamespace(TwinObjects.NAMESPACE).resource(new PodBuilder().withNewMetadata().withName("someone-elses")
                    .endMetadata().withNewSpec().addNewContainer().withName("c").withImage("busybox").endContainer().endSpec()
                    .build()).create();
            SimConfig config = SimConfig.of(Map.of("cluster.nodes", "2", "workload.jobs", "8", "workload.workMax", "900"));
            List<JobSpec> jobs = Workload.of(config.workload());
            RunResult r;
            try (ClusterControlPlane cm = new ClusterControlPlane(config, new ClusterControlPlane.Options(REPO, Baseline.B, 60,
                    dir.resolve("logs"), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), kubeconfig))) {
                Simulation sim = new Simulation(config, jobs, Baseline.B, cm);
                cm.start(Duration.ofSeconds(150));
                assertThat(admin.nodes().withName("node-0001").get()).isNotNull();
                r = sim.run();
            }
            assertThat(r.jobsCompleted()).isEqualTo(8);
            assertThat(r.violationSeconds()).isZero();
            assertThat(admin.nodes().list().getItems()).isEmpty();
            assertThat(admin.resources(TelemetryProfile.class).list().getItems()).isEmpty();
            assertThat(admin.pods().inNamespace(TwinObjects.NAMESPACE).list().getItems())
                    .extracting(p -> p.getMetadata().getName()).containsExactly("someone-elses");

            // A Node of the same name that the twin did not create: refused before anything starts.
            admin.nodes().resource(new NodeBuilder().withNewMetadata().withName("node-0001").endMetadata().build()).create();
            try (ClusterControlPlane cm = new ClusterControlPlane(config, new ClusterControlPlane.Options(REPO, Baseline.B, 60,
                    dir.resolve("logs2"), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), kubeconfig))) {
                assertThatThrownBy(() -> cm.start(Duration.ofSeconds(5))).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("a Node named node-0001 already exists");
            }
            assertThat(admin.nodes().withName("node-0001").get()).isNotNull();
        } finally {
            cluster.destroy();
        }
    }
}
