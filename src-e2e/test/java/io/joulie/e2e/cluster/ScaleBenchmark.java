package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.testkit.PrometheusText;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scale benchmark (not part of the test run; docs/benchmarks.md): for each size in {@code -De2e.scale.nodes}
 * (default {@code 1000,5000}), a fresh real control plane with that many kwok nodes handed to Joulie and 20 Pods
 * bound to each (one node in ten also runs a performance-only Pod); then the packaged operator, with the JVM
 * ergonomics of its 512 Mi container ({@code -XX:MaxRAM=512m}, the image's entrypoint flags otherwise), as its own
 * ServiceAccount. Measures the time from its start to every NodePowerProfile written, the tick duration, the API
 * requests per steady tick (audit log), and its RSS and heap. Run:
 * <pre>./mvnw -pl src-e2e verify -Dit.test=ScaleBenchmark -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false</pre>
 * (after a build that packaged the operator). Results: printed and in {@code src-e2e/target/scale-results.md}.
 */
class ScaleBenchmark {
    static final int PODS_PER_NODE = 20;
    static final String INTERVAL = "15s";
    /** How long kwok may take to run every Pod before the operator starts (about 100 Pods a second on 2 cores). */
    static final int RUNNING_MINUTES = 45;

    @Test
    void scale() throws Exception {
        List<String> rows = new ArrayList<>();
        rows.add("| nodes | pods | to every profile written | tick (mean / max) | requests per steady tick | RSS (peak) | heap used |");
        rows.add("|---|---|---|---|---|---|---|");
        for (String size : System.getProperty("e2e.scale.nodes", "1000,5000").split(",")) {
            rows.add(run(Integer.parseInt(size.strip())));
            Files.writeString(RealCluster.REPO.resolve("src-e2e/target/scale-results.md"), String.join("\n", rows) + "\n");
        }
        rows.forEach(System.out::println);
    }

    static String run(int nodes) throws Exception {
        try (RealCluster cluster = RealCluster.start(RealCluster.REPO.resolve("src-e2e/target/scale-" + nodes),
                ControlPlane.Tuning.SCALE)) {
            cluster.install().ok();
            List<String> names = IntStream.range(0, nodes).mapToObj(i -> String.format(Locale.ROOT, "scale-%05d", i)).toList();
            ExecutorService pool = Executors.newFixedThreadPool(32);
            try {
                parallel(pool, names, n -> cluster.kwokNodes(List.of(n), Map.of("joulie.io/managed", "true")));
                cluster.namespace("scale");
                parallel(pool, names, n -> {
                    int index = Integer.parseInt(n.substring(6));
                    for (int p = 0; p < PODS_PER_NODE; p++) {
                        boolean performance = p == 0 && index % 10 == 0;
                        cluster.admin.resource(pod(n, p, performance)).create();
                    }
                });
            } finally {
                pool.shutdown();
            }
            System.out.printf("%d nodes and %d pods created%n", nodes, nodes * PODS_PER_NODE);
            // kwok runs them all before the operator starts, so its status writes do not load the measurement
            long running = System.nanoTime() + Duration.ofMinutes(RUNNING_MINUTES).toNanos();
            long pending;
            long lastReport = 0;
            while ((pending = pending(cluster)) > 0) {
                assertThat(System.nanoTime()).as("kwok runs every pod within %d min", RUNNING_MINUTES).isLessThan(running);
                if (System.nanoTime() - lastReport > Duration.ofSeconds(30).toNanos()) {
                    System.out.printf("%d pods not running yet%n", pending);
                    lastReport = System.nanoTime();
                }
                Thread.sleep(2000);
            }

            JavaProcess operator;
            double converged;
            // one watch on the profiles: polling LISTs of thousands of objects would load the API server being measured
            try (SharedIndexInformer<NodePowerProfile> profiles = cluster.admin.resources(NodePowerProfile.class).inform()) {
                Instant start = Instant.now();
                operator = cluster.startOperator("joulie-operator-0", Map.of("RECONCILE_INTERVAL", INTERVAL),
                        List.of("-XX:MaxRAM=512m"));
                long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
                while (profiles.getStore().list().size() < nodes) {
                    assertThat(System.nanoTime()).as("every profile written within 10 min").isLessThan(deadline);
                    assertThat(operator.process.isAlive()).as("operator alive").isTrue();
                    Thread.sleep(250);
                }
                converged = Duration.between(start, Instant.now()).toMillis() / 1000.0;
                // the second tick commits the drained nodes to eco; then the cluster is steady
                long steady = System.nanoTime() + Duration.ofMinutes(5).toNanos();
                while (!settled(profiles.getStore().list(), nodes)) {
                    assertThat(System.nanoTime()).as("plan settled within 5 min").isLessThan(steady);
                    Thread.sleep(1000);
                }
            }
            Thread.sleep(5_000);
            Instant from = Instant.now();
            Thread.sleep(3 * 15_000L);
            Instant to = Instant.now();
            String operatorUser = AuditLog.serviceAccount(RealCluster.NAMESPACE, RealCluster.OPERATOR_SA);
            long requests = AuditLog.read(cluster.controlPlane.auditLog()).stream()
                    .filter(e -> e.user().equals(operatorUser) && e.at().isAfter(from) && e.at().isBefore(to) && !e.watch()
                            && !e.lease())
                    .count();
            String metrics = operator.get("/q/metrics");
            double tickCount = PrometheusText.sum(metrics, "joulie_tick_duration_seconds_count");
            double tickSum = PrometheusText.sum(metrics, "joulie_tick_duration_seconds_sum");
            double tickMax = PrometheusText.sum(metrics, "joulie_tick_duration_seconds_max");
            double heap = PrometheusText.sum(metrics, "jvm_memory_used_bytes", "area=\"heap\"");
            long[] rss = operator.rssKiB();
            return String.format(Locale.ROOT, "| %d | %d | %.1f s | %.0f / %.0f ms | %.1f | %d MiB (%d MiB) | %d MiB |", nodes,
                    nodes * PODS_PER_NODE, converged, tickSum / tickCount * 1000, tickMax * 1000, requests / 3.0,
                    rss[0] / 1024, rss[1] / 1024, Math.round(heap / 1024 / 1024));
        }
    }

    /** Pods kwok has not run yet: one page of one, and the server's count of the rest. */
    static long pending(RealCluster cluster) {
        var page = cluster.admin.pods().inNamespace("scale").withField("status.phase", "Pending")
                .list(new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withLimit(1L).build());
        Long rest = page.getMetadata().getRemainingItemCount();
        return page.getItems().size() + (rest == null ? 0 : rest);
    }

    static boolean settled(List<NodePowerProfile> all, int nodes) {
        return all.size() == nodes && all.stream().allMatch(p -> p.getStatus() != null && p.getStatus().state() != null
                && (p.getStatus().state() != io.joulie.api.v1alpha1.PowerState.DrainingPerformance
                || p.getStatus().reason().contains("performance-only pod:")));
    }

    static Pod pod(String node, int index, boolean performance) {
        PodBuilder b = new PodBuilder().withNewMetadata().withName(node + "-" + index).withNamespace("scale").endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("work").withImage("registry.invalid/work:1")
                .endContainer().withTerminationGracePeriodSeconds(0L).endSpec();
        if (performance) {
            b.editSpec().withNodeSelector(Map.of(JoulieApi.POWER_PROFILE_LABEL, "performance")).endSpec();
        }
        return b.build();
    }

    interface Work {
        void run(String node) throws Exception;
    }

    static void parallel(ExecutorService pool, List<String> nodes, Work work) throws Exception {
        List<Future<?>> futures = new ArrayList<>();
        for (String n : nodes) {
            futures.add(pool.submit(() -> {
                work.run(n);
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
    }
}
