package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.e2e.image.JoulieImage;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scale benchmark, side by side (not part of the test run; docs/benchmarks.md): for each size in
 * {@code -De2e.scale.nodes} (default {@code 1000,5000}), a fresh real control plane with that many kwok nodes handed to
 * Joulie and {@code -De2e.scale.podsPerNode} Pods (default 20) bound to each (one node in ten also runs a
 * performance-only Pod), every Pod Running; then each operator of {@code -De2e.scale.operators} ({@code |}-separated,
 * default {@code image}), one after the other from no per-node object, no power-profile label and no Lease:
 * <ul>
 * <li>{@code image}: Joulie's operator image as its container runs it ({@link BenchedOperator#image}: its runtime,
 * entrypoint, ahead-of-time cache, in a memory cgroup with the Deployment's 512 MiB limit); {@code image <options>}
 * adds JVM options through {@code JAVA_TOOL_OPTIONS} and {@code env:NAME=VALUE} variables, as a Pod's env would, and
 * {@code archive:<file>} runs another build's image archive (a copy of an earlier {@code joulie-operator-image.tar}:
 * before and after a change on one control plane);</li>
 * <li>{@code go}: the Go Joulie, built from the checkout {@code -De2e.scale.goJoulie=<dir>} names (a clone of
 * joulie-k8s/Joulie, never committed here), with its chart's defaults and the same policy settings;</li>
 * <li>anything else: the packaged fast-jar on this JDK with these space-separated JVM options ({@code entrypoint}
 * stands for the image entrypoint's options and environment, less the cache; {@code env:NAME=VALUE} sets a variable),
 * with {@code -XX:MaxRAM=512m} for the container's memory.</li>
 * </ul>
 * {@code -De2e.scale.runs=N} repeats the whole list N times (default 1), so that two operators alternate. Each run
 * measures, from the process's start (the JVM's or the Go binary's, not the image's unpacking): the time until every
 * managed node carries a power-profile label and its per-node object (NodePowerProfile; the Go Joulie's NodeTwin), the
 * CPU time (utime + stime) and peak RSS (VmHWM) until then; then, once no label has changed for
 * {@link #QUIET} (and Joulie's profiles are settled), a steady window of {@link #STEADY_TICKS} intervals: the API
 * requests per tick (audit log: watches and Lease requests apart; the Go Joulie's ticks are its LISTs of Nodes, Joulie's
 * its tick counter), the CPU per tick, the RSS and its peak, the machine's load average. {@code -De2e.scale.holdMinutes=N}
 * keeps the populated cluster up that long first, for profiling by hand. Run (after a build that packaged the operator
 * image): <pre>./mvnw -pl src-e2e verify -Dit.test=ScaleBenchmark -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false</pre>
 * Results: printed, with the ratios to the Go Joulie, and in {@code src-e2e/target/scale-results.md}.
 */
class ScaleBenchmark {
    /** The reconcile interval of both operators (the review of 2026-11-27 used 20 s). */
    static final String INTERVAL = "20s";
    static final int INTERVAL_SECONDS = 20;
    /** The steady window, in intervals: two minutes, as in the review of 2026-11-27 (the Go Joulie's ticks last longer than its interval). */
    static final int STEADY_TICKS = 6;
    /** No label change for this long (one and a half intervals) and the plan is taken as settled. */
    static final Duration QUIET = Duration.ofSeconds(30);
    /** How long kwok may take to run every Pod before the operator starts. */
    static final int RUNNING_MINUTES = 45;
    /** The operator container's memory limit, as a JVM on the host sees it. */
    static final String CONTAINER = "-XX:MaxRAM=512m";
    static final String HEADER = "| operator | nodes | pods | converged | CPU to converge | peak RSS | steady RSS | requests per steady tick "
            + "| CPU per steady tick | load (1 min) |";

    @Test
    void scale() throws Exception {
        List<String> rows = new ArrayList<>();
        List<String> operators = List.of(System.getProperty("e2e.scale.operators", "image").split("\\|"));
        int runs = Integer.getInteger("e2e.scale.runs", 1);
        int podsPerNode = Integer.getInteger("e2e.scale.podsPerNode", 20);
        BenchedOperator.GoBuild go = null;
        if (operators.stream().anyMatch(o -> o.strip().equals("go"))) {
            String checkout = System.getProperty("e2e.scale.goJoulie", "");
            assertThat(checkout).as("-De2e.scale.goJoulie=<a checkout of joulie-k8s/Joulie> for the operator 'go'").isNotEmpty();
            go = BenchedOperator.buildGoJoulie(Path.of(checkout).toAbsolutePath());
            rows.add("Go Joulie: " + go.version());
        }
        rows.add("");
        for (String size : System.getProperty("e2e.scale.nodes", "1000,5000").split(",")) {
            int nodes = Integer.parseInt(size.strip());
            List<Result> results = new ArrayList<>();
            try (RealCluster cluster = RealCluster.start(RealCluster.REPO.resolve("src-e2e/target/scale-" + nodes),
                    ControlPlane.Tuning.SCALE)) {
                populate(cluster, nodes, podsPerNode);
                if (go != null) {
                    BenchedOperator.installGoJoulie(cluster, go);
                }
                // the control plane is still busy for a while after the Pods run (kwok's and the controllers' writes):
                // the first run would start on a busier server than the others
                Thread.sleep(Duration.ofSeconds(30).toMillis());
                int hold = Integer.getInteger("e2e.scale.holdMinutes", 0);
                if (hold > 0) {
                    // for profiling by hand: the populated cluster stays up, with a kubeconfig of the operator's account
                    System.out.printf("holding the cluster for %d min; operator kubeconfig: %s%n", hold,
                            cluster.serviceAccountKubeconfig(RealCluster.NAMESPACE, RealCluster.OPERATOR_SA));
                    Thread.sleep(Duration.ofMinutes(hold).toMillis());
                }
                int index = 0;
                for (int run = 0; run < runs; run++) {
                    for (String operator : operators) {
                        if (index > 0) {
                            reset(cluster, nodes);
                        }
                        results.add(measureOrReport(cluster, nodes, podsPerNode, operator.strip(), index++, go));
                        Files.writeString(RealCluster.REPO.resolve("src-e2e/target/scale-results.md"),
                                String.join("\n", table(rows, results)) + "\n");
                    }
                }
            }
            rows = table(rows, results);
        }
        rows.forEach(System.out::println);
    }

    /** One run's figures; {@code failure} says why a run did not converge (its other figures are then absent). */
    record Result(String operator, int nodes, int pods, double converged, double cpuToConverge, long peakMiB,
                  long steadyMiB, double requestsPerTick, double cpuPerTick, double load, String failure) {
        boolean go() {
            return operator.equals("go");
        }

        String row() {
            if (failure != null) {
                return String.format(Locale.ROOT, "| %s | %,d | %,d | not converged: %s | | | | | | %.1f |", operator, nodes,
                        pods, failure, load);
            }
            return String.format(Locale.ROOT, "| %s | %,d | %,d | %.1f s | %.2f s | %d MiB | %d MiB | %.1f | %.3f s | %.1f |",
                    operator, nodes, pods, converged, cpuToConverge, peakMiB, steadyMiB, requestsPerTick, cpuPerTick, load);
        }
    }

    /** The rows so far, then this size's table and each Joulie run's ratios to the mean of the Go Joulie's runs. */
    static List<String> table(List<String> before, List<Result> results) {
        List<String> rows = new ArrayList<>(before);
        rows.add(HEADER);
        rows.add("|---|---|---|---|---|---|---|---|---|---|");
        results.forEach(r -> rows.add(r.row()));
        List<Result> go = results.stream().filter(r -> r.go() && r.failure() == null).toList();
        if (!go.isEmpty()) {
            double conv = go.stream().mapToDouble(Result::converged).average().orElseThrow();
            double cpu = go.stream().mapToDouble(Result::cpuToConverge).average().orElseThrow();
            double peak = go.stream().mapToDouble(Result::peakMiB).average().orElseThrow();
            rows.add("");
            rows.add("| ratio to the Go Joulie's mean | converged | CPU to converge | peak RSS |");
            rows.add("|---|---|---|---|");
            results.stream().filter(r -> !r.go() && r.failure() == null).forEach(r -> rows.add(String.format(Locale.ROOT,
                    "| %s | %.2f× | %.2f× | %.2f× |", r.operator(), r.converged() / conv, r.cpuToConverge() / cpu,
                    r.peakMiB() / peak)));
        }
        rows.add("");
        return rows;
    }

    /** Joulie installed, the kwok nodes and their Pods, every Pod Running. */
    static void populate(RealCluster cluster, int nodes, int podsPerNode) throws Exception {
        cluster.install().ok();
        List<String> names = names(nodes);
        ExecutorService pool = Executors.newFixedThreadPool(32);
        try {
            parallel(pool, names, n -> cluster.kwokNodes(List.of(n), Map.of("joulie.io/managed", "true")));
            cluster.namespace("scale");
            parallel(pool, names, n -> {
                int index = Integer.parseInt(n.substring(6));
                for (int p = 0; p < podsPerNode; p++) {
                    boolean performance = p == 0 && index % 10 == 0;
                    cluster.admin.resource(pod(n, p, performance)).create();
                }
            });
        } finally {
            pool.shutdown();
        }
        System.out.printf("%d nodes and %d pods created%n", nodes, nodes * podsPerNode);
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

    /**
     * Back to the state before any operator ran: no NodePowerProfile, no NodeTwin, no power-profile label, no Lease.
     */
    static void reset(RealCluster cluster, int nodes) throws Exception {
        deleteAll(cluster, cluster.admin.resources(NodePowerProfile.class));
        if (cluster.admin.apiextensions().v1().customResourceDefinitions().withName("nodetwins.joulie.io").get() != null) {
            deleteAll(cluster, cluster.admin.genericKubernetesResources("joulie.io/v1alpha1", "NodeTwin"));
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
    }

    private static void deleteAll(RealCluster cluster,
            io.fabric8.kubernetes.client.dsl.MixedOperation<?, ? extends io.fabric8.kubernetes.api.model.KubernetesResourceList<?>, ?> objects) throws InterruptedException {
        try {
            objects.delete();
        } catch (io.fabric8.kubernetes.client.KubernetesClientException slow) {
            // deleting thousands takes the server longer than the client waits; it carries on, and the loop below waits
            System.out.printf("deleting: %s%n", slow.getMessage());
        }
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (!objects.list(new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withLimit(1L).build()).getItems().isEmpty()) {
            assertThat(System.nanoTime()).as("per-node objects removed within 5 min").isLessThan(deadline);
            Thread.sleep(1000);
        }
    }

    /** A run that does not converge is a result too (the row says why); the next run still goes ahead. */
    static Result measureOrReport(RealCluster cluster, int nodes, int podsPerNode, String operator, int index,
                                  BenchedOperator.GoBuild go) throws Exception {
        try {
            return measure(cluster, nodes, podsPerNode, operator, index, go);
        } catch (AssertionError e) {
            cluster.stopOperators();
            String why = e.getMessage().lines().findFirst().orElse("failed");
            System.out.printf("%s: %s%n", operator, e.getMessage());
            return new Result(operator, nodes, nodes * podsPerNode, 0, 0, 0, 0, 0, 0, load(), why);
        }
    }

    static BenchedOperator start(RealCluster cluster, String operator, int index, BenchedOperator.GoBuild go)
            throws IOException {
        String name = "operator-" + index;
        if (operator.equals("go")) {
            return BenchedOperator.goJoulie(cluster, name, go);
        }
        List<String> jvm = new ArrayList<>();
        Map<String, String> env = new LinkedHashMap<>();
        Path archive = JoulieImage.OPERATOR.tarball(RealCluster.REPO);
        boolean image = operator.equals("image") || operator.startsWith("image ");
        if (!image) {
            jvm.add(CONTAINER);
            // the product's default settle time, not the suite's short one RealCluster sets
            env.putAll(Map.of("RECONCILE_INTERVAL", INTERVAL, "SETTLE_TIME", "5s"));
        }
        for (String option : operator.split("\\s+")) {
            if (option.equals("image")) {
                continue;
            } else if (option.equals("entrypoint")) {
                jvm.addAll(ImageEntrypoint.jvmOptions(JoulieImage.OPERATOR));
                env.putAll(ImageEntrypoint.environment(JoulieImage.OPERATOR));
            } else if (option.startsWith("env:")) {
                String[] kv = option.substring(4).split("=", 2);
                env.put(kv[0], kv[1]);
            } else if (image && option.startsWith("archive:")) {
                archive = Path.of(option.substring("archive:".length()));
            } else if (!option.isEmpty()) {
                jvm.add(option);
            }
        }
        if (image) {
            // options added to the image's entrypoint, as a Pod's JAVA_TOOL_OPTIONS would
            if (!jvm.isEmpty()) {
                env.put("JAVA_TOOL_OPTIONS", String.join(" ", jvm));
            }
            return BenchedOperator.image(cluster, name, archive, env);
        }
        return BenchedOperator.hostJvm(cluster, name, env, jvm);
    }

    static Result measure(RealCluster cluster, int nodes, int podsPerNode, String operator, int index,
                          BenchedOperator.GoBuild go) throws Exception {
        boolean isGo = operator.equals("go");
        AtomicLong lastLabelChange = new AtomicLong(System.nanoTime());
        // watches, not polling: LISTs of thousands of objects would load the API server being measured
        try (SharedIndexInformer<Node> managed = cluster.admin.nodes().withLabel("joulie.io/managed", "true")
                .inform(labelChanges(lastLabelChange));
             SharedIndexInformer<? extends HasMetadata> objects = isGo
                     ? cluster.admin.genericKubernetesResources("joulie.io/v1alpha1", "NodeTwin").inform()
                     : cluster.admin.resources(NodePowerProfile.class).inform();
             BenchedOperator op = start(cluster, operator, index, go)) {
            long deadline = System.nanoTime() + Duration.ofMinutes(isGo ? 3 : 6).toNanos();
            while (objects.getStore().list().size() < nodes || labelled(managed) < nodes) {
                assertThat(System.nanoTime()).as("every node labelled and with its object within %d min (%d labelled, "
                        + "%d objects)", isGo ? 3 : 6, labelled(managed), objects.getStore().list().size()).isLessThan(deadline);
                assertThat(op.alive()).as("%s alive: %s", operator, op.logTail()).isTrue();
                Thread.sleep(100);
            }
            double converged = Duration.between(op.started, Instant.now()).toMillis() / 1000.0;
            double cpuToConverge = op.cpuSeconds();
            double loadAtConverge = load();
            System.out.printf("%s converged in %.1f s, %.2f s CPU (%s)%n", operator, converged, cpuToConverge,
                    op.cpuByThread(8));
            long steady = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            while (System.nanoTime() - lastLabelChange.get() < QUIET.toNanos()
                    || (!isGo && !settled(profiles(objects), nodes))) {
                assertThat(System.nanoTime()).as("plan settled within 5 min").isLessThan(steady);
                Thread.sleep(1000);
            }
            OptionalLong ticksBefore = op.ticks();
            double cpuBefore = op.cpuSeconds();
            Instant from = Instant.now();
            Thread.sleep(STEADY_TICKS * INTERVAL_SECONDS * 1000L);
            Instant to = Instant.now();
            double cpu = op.cpuSeconds() - cpuBefore;
            OptionalLong ticksAfter = op.ticks();
            long[] rss = op.rssKiB();
            System.out.printf("%s steady: CPU by thread since the start: %s%n", operator, op.cpuByThread(10));
            double load = (loadAtConverge + load()) / 2;
            Thread.sleep(2000); // the audit log's last lines of the window
            String user = isGo ? AuditLog.serviceAccount(BenchedOperator.GO_NAMESPACE, BenchedOperator.GO_SA)
                    : AuditLog.serviceAccount(RealCluster.NAMESPACE, RealCluster.OPERATOR_SA);
            List<AuditLog.Entry> window = AuditLog.read(cluster.controlPlane.auditLog()).stream()
                    .filter(e -> e.user().equals(user) && e.at().isAfter(from) && e.at().isBefore(to)).toList();
            long requests = window.stream().filter(e -> !e.watch() && !e.lease()).count();
            double ticks = isGo
                    ? window.stream().filter(e -> e.verb().equals("list") && "nodes".equals(e.resource())).count()
                    : ticksAfter.orElseThrow() - ticksBefore.orElseThrow();
            assertThat(ticks).as("ticks in the steady window").isPositive();
            return new Result(operator, nodes, nodes * podsPerNode, converged, cpuToConverge, rss[1] / 1024, rss[0] / 1024,
                    requests / ticks, cpu / ticks, load, null);
        }
    }

    @SuppressWarnings("unchecked")
    static List<NodePowerProfile> profiles(SharedIndexInformer<? extends HasMetadata> objects) {
        return (List<NodePowerProfile>) objects.getStore().list();
    }

    /** Managed nodes that carry a power-profile label. */
    static long labelled(SharedIndexInformer<Node> managed) {
        return managed.getStore().list().stream()
                .filter(n -> n.getMetadata().getLabels().containsKey(JoulieApi.POWER_PROFILE_LABEL)).count();
    }

    static ResourceEventHandler<Node> labelChanges(AtomicLong last) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node node) {
            }

            @Override
            public void onUpdate(Node before, Node after) {
                if (!java.util.Objects.equals(before.getMetadata().getLabels().get(JoulieApi.POWER_PROFILE_LABEL),
                        after.getMetadata().getLabels().get(JoulieApi.POWER_PROFILE_LABEL))) {
                    last.set(System.nanoTime());
                }
            }

            @Override
            public void onDelete(Node node, boolean unknown) {
            }
        };
    }

    /** The machine's one-minute load average. */
    static double load() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException e) {
            return Double.NaN;
        }
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
