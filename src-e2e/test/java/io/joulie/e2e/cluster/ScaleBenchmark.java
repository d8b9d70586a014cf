package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.e2e.image.JoulieImage;
import io.joulie.harness.JavaApp;
import io.joulie.testkit.PrometheusText;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
 * bound to each (one node in ten also runs a performance-only Pod); then the packaged operator as its own
 * ServiceAccount, started the way its container image starts it (the JVM options of the image's entrypoint) with
 * the memory of its container ({@code -XX:MaxRAM=512m}, the limit in {@code kubernetes/20-operator.yml}). Measures the
 * time from its start to every NodePowerProfile written, the tick duration, the API requests per steady tick (audit
 * log), and its RSS and heap.
 *
 * <p>{@code -De2e.scale.jvm} compares JVM option sets side by side on the same cluster, separated by {@code |}, each a
 * space-separated list ({@code image} stands for the entrypoint's options, {@code env:NAME=VALUE} sets an environment
 * variable); between two runs every NodePowerProfile and power-profile label is removed, so each starts from the same
 * state. {@code -De2e.scale.holdMinutes=N} keeps the populated cluster up that long first, for profiling by hand. Run: <pre>./mvnw -pl src-e2e verify -Dit.test=ScaleBenchmark -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false</pre>
 * (after a build that packaged the operator). Results: printed and in {@code src-e2e/target/scale-results.md}.
 */
class ScaleBenchmark {
    static final int PODS_PER_NODE = 20;
    static final String INTERVAL = "15s";
    /** How long kwok may take to run every Pod before the operator starts. */
    static final int RUNNING_MINUTES = 45;
    /** How long the operator may take to write every NodePowerProfile before the variant counts as not converged. */
    static final int CONVERGE_MINUTES = 6;
    /** The operator container's memory limit, as the JVM sees it inside the container. */
    static final String CONTAINER = "-XX:MaxRAM=512m";

    @Test
    void scale() throws Exception {
        List<String> rows = new ArrayList<>();
        rows.add("| JVM | nodes | pods | to every profile written | tick (mean / max) | requests per steady tick | RSS (peak) | heap used |");
        rows.add("|---|---|---|---|---|---|---|---|");
        List<String> variants = List.of(System.getProperty("e2e.scale.jvm", "image").split("\\|"));
        for (String size : System.getProperty("e2e.scale.nodes", "1000,5000").split(",")) {
            int nodes = Integer.parseInt(size.strip());
            try (RealCluster cluster = RealCluster.start(RealCluster.REPO.resolve("src-e2e/target/scale-" + nodes),
                    ControlPlane.Tuning.SCALE)) {
                populate(cluster, nodes);
                int hold = Integer.getInteger("e2e.scale.holdMinutes", 0);
                if (hold > 0) {
                    // for profiling by hand: the populated cluster stays up, with a kubeconfig of the operator's account
                    System.out.printf("holding the cluster for %d min; operator kubeconfig: %s%n", hold,
                            cluster.serviceAccountKubeconfig(RealCluster.NAMESPACE, RealCluster.OPERATOR_SA));
                    Thread.sleep(Duration.ofMinutes(hold).toMillis());
                }
                for (int v = 0; v < variants.size(); v++) {
                    if (v > 0) {
                        reset(cluster, nodes);
                    }
                    rows.add(measureOrReport(cluster, nodes, variants.get(v).strip(), v));
                    Files.writeString(RealCluster.REPO.resolve("src-e2e/target/scale-results.md"), String.join("\n", rows) + "\n");
                }
            }
        }
        rows.forEach(System.out::println);
    }

    /** Joulie installed, the kwok nodes and their Pods, every Pod Running. */
    static void populate(RealCluster cluster, int nodes) throws Exception {
        cluster.install().ok();
        List<String> names = names(nodes);
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
        long lastReport = 0;
        for (String pending = pending(cluster); !pending.equals("0"); pending = pending(cluster)) {
            assertThat(System.nanoTime()).as("kwok runs every pod within %d min", RUNNING_MINUTES).isLessThan(running);
            if (System.nanoTime() - lastReport > Duration.ofSeconds(30).toNanos()) {
                System.out.printf("%s pods not running yet%n", pending);
                lastReport = System.nanoTime();
            }
            Thread.sleep(2000);
        }
    }

    /** Back to the state before the operator first ran: no NodePowerProfile, no power-profile label, no Lease holder. */
    static void reset(RealCluster cluster, int nodes) throws Exception {
        try {
            cluster.admin.resources(NodePowerProfile.class).delete();
        } catch (io.fabric8.kubernetes.client.KubernetesClientException slow) {
            // deleting thousands takes the server longer than the client waits; it carries on, and the loop below waits
            System.out.printf("deleting the profiles: %s%n", slow.getMessage());
        }
        ExecutorService pool = Executors.newFixedThreadPool(32);
        try {
            parallel(pool, names(nodes), n -> cluster.admin.nodes().withName(n).edit(node -> {
                node.getMetadata().getLabels().remove(JoulieApi.POWER_PROFILE_LABEL);
                return node;
            }));
        } finally {
            pool.shutdown();
        }
        cluster.admin.leases().inNamespace(RealCluster.NAMESPACE).withName("joulie-operator-leader").delete();
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (!cluster.admin.resources(NodePowerProfile.class).list(
                new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withLimit(1L).build()).getItems().isEmpty()) {
            assertThat(System.nanoTime()).as("profiles removed within 5 min").isLessThan(deadline);
            Thread.sleep(1000);
        }
    }

    /** A variant that does not converge is a result too (the row says why); the next variant still runs. */
    static String measureOrReport(RealCluster cluster, int nodes, String variant, int index) throws Exception {
        try {
            return measure(cluster, nodes, variant, index);
        } catch (AssertionError e) {
            cluster.stopOperators();
            String why = e.getMessage().lines().findFirst().orElse("failed");
            System.out.printf("%s: %s%n", variant, e.getMessage());
            return String.format(Locale.ROOT, "| %s | %d | %d | not converged: %s | | | | |", variant, nodes,
                    nodes * PODS_PER_NODE, why);
        }
    }

    static String measure(RealCluster cluster, int nodes, String variant, int index) throws Exception {
        List<String> jvm = new ArrayList<>(List.of(CONTAINER));
        Map<String, String> env = new LinkedHashMap<>(Map.of("RECONCILE_INTERVAL", INTERVAL));
        for (String option : variant.split("\\s+")) {
            if (option.equals("image")) {
                jvm.addAll(ImageEntrypoint.jvmOptions(JoulieImage.OPERATOR));
                env.putAll(ImageEntrypoint.environment(JoulieImage.OPERATOR));
            } else if (option.startsWith("env:")) {
                String[] kv = option.substring(4).split("=", 2);
                env.put(kv[0], kv[1]);
            } else if (!option.isEmpty()) {
                jvm.add(option);
            }
        }
        JavaApp operator;
        double converged;
        // one watch on the profiles: polling LISTs of thousands of objects would load the API server being measured
        try (SharedIndexInformer<NodePowerProfile> profiles = cluster.admin.resources(NodePowerProfile.class).inform()) {
            Instant start = Instant.now();
            operator = cluster.startOperator("joulie-operator-" + index, env, jvm);
            long deadline = System.nanoTime() + Duration.ofMinutes(CONVERGE_MINUTES).toNanos();
            while (profiles.getStore().list().size() < nodes) {
                assertThat(System.nanoTime()).as("every profile written within %d min", CONVERGE_MINUTES).isLessThan(deadline);
                assertThat(operator.isAlive()).as("operator alive (%s)", variant).isTrue();
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
        if (jvm.stream().anyMatch(o -> o.startsWith("-XX:NativeMemoryTracking"))) {
            Path nmt = cluster.controlPlane.workDir().resolve("nmt-" + index + ".txt");
            new ProcessBuilder(JavaApp.JAVA.resolveSibling("jcmd").toString(), Long.toString(operator.process().pid()),
                    "VM.native_memory", "summary").redirectOutput(nmt.toFile()).start().waitFor();
        }
        operator.close();
        return String.format(Locale.ROOT, "| %s | %d | %d | %.1f s | %.0f / %.0f ms | %.1f | %d MiB (%d MiB) | %d MiB |",
                String.join(" ", jvm), nodes, nodes * PODS_PER_NODE, converged, tickSum / tickCount * 1000, tickMax * 1000,
                requests / 3.0, rss[0] / 1024, rss[1] / 1024, Math.round(heap / 1024 / 1024));
    }

    static List<String> names(int nodes) {
        return IntStream.range(0, nodes).mapToObj(i -> String.format(Locale.ROOT, "scale-%05d", i)).toList();
    }

    /** How many Pods kwok has not run yet, from one page of at most 1,000 ("1000+" beyond: a field selector gives no count). */
    static String pending(RealCluster cluster) {
        var page = cluster.admin.pods().inNamespace("scale").withField("status.phase", "Pending")
                .list(new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withLimit(1000L).build());
        String more = page.getMetadata().getContinue();
        return page.getItems().size() + (more == null || more.isEmpty() ? "" : "+");
    }

    static boolean settled(List<NodePowerProfile> all, int nodes) {
        return all.size() == nodes && all.stream().allMatch(p -> p.getStatus() != null && p.getStatus().state() != null
                && (p.getStatus().state() != io.joulie.api.v1alpha1.PowerState.DrainingPerformance
                || p.getStatus().reason().startsWith("draining ")));
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
