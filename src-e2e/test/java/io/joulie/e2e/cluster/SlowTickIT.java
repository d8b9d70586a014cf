package io.joulie.e2e.cluster;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.Profile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A rescue does not wait for a tick (issue 21, docs/reliability.md "Rescues and slow ticks"). The operator plans every
 * 2 minutes with the production settle time (5 s) and telemetry from a Prometheus that answers each query only after
 * 25 s: a tick is held in its telemetry read for its whole telemetry budget (half the interval, 60 s: its four queries
 * would take 100 s), then writes. While the tick is held, a performance-only Pod is bound past the scheduler onto an eco
 * node: the watchdog raises the node's NodePowerProfile to the performance cap within the stated bound, while the tick
 * is still waiting for Prometheus.
 */
@Order(4)
class SlowTickIT extends ClusterScenario {
    static final String NS = "e2e-slow-tick";
    /** How long the fake Prometheus takes to answer each query. */
    static final Duration ANSWER_AFTER = Duration.ofSeconds(25);
    /** The bound on a rescue's write stated in docs/reliability.md (watch delivery + recheck + one NodePowerProfile write). */
    static final Duration RESCUE_BOUND = Duration.ofSeconds(5);

    static HttpServer prometheus;
    static final AtomicInteger inFlight = new AtomicInteger();
    static final AtomicLong firstQueryNanos = new AtomicLong();
    static final CountDownLatch released = new CountDownLatch(1);

    @BeforeAll
    static void start() throws IOException {
        cluster.namespace(NS);
        prometheus = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        prometheus.setExecutor(Executors.newCachedThreadPool());
        prometheus.createContext("/api/v1/query", exchange -> {
            inFlight.incrementAndGet();
            firstQueryNanos.compareAndSet(0, System.nanoTime());
            try {
                released.await(ANSWER_AFTER.toMillis(), TimeUnit.MILLISECONDS);
                double now = System.currentTimeMillis() / 1000.0;
                // timestamp(<query>) answers with the samples' time: fresh
                String value = exchange.getRequestURI().getRawQuery().contains("timestamp") ? Double.toString(now) : "50";
                StringBuilder result = new StringBuilder();
                for (String node : RealCluster.MANAGED) {
                    result.append(result.isEmpty() ? "" : ",").append("{\"metric\":{\"node\":\"").append(node)
                            .append("\"},\"value\":[").append(now).append(",\"").append(value).append("\"]}");
                }
                byte[] body = ("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[" + result + "]}}")
                        .getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                inFlight.decrementAndGet();
                exchange.close();
            }
        });
        prometheus.start();
    }

    @AfterAll
    static void cleanUp() {
        removeNamespaceAndPolicy(NS);
        released.countDown();
        if (prometheus != null) {
            prometheus.stop(0);
        }
        // the operator's schedule is at 2 minutes now: the next scenario starts with a fresh operator planning at the suite's pace
        cluster.stopOperators();
    }

    @Test
    void aPerformanceOnlyPodOnAnEcoNodeIsRescuedWhileATickIsHeldInASlowPrometheus() throws Exception {
        int nodes = RealCluster.MANAGED.size();
        cluster.policy("{\"type\":\"static_partition\",\"staticHpFrac\":0.34}");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> cluster.states().values().stream().filter("ActiveEco"::equals).count() == nodes - 2);
        String ecoNode = cluster.states().entrySet().stream().filter(e -> e.getValue().equals("ActiveEco"))
                .map(Map.Entry::getKey).sorted().findFirst().orElseThrow();

        io.joulie.harness.JavaApp operator = cluster.running();
        double unreachableBefore = unreachable(operator);
        // production settle time, and telemetry that holds the next tick in its read
        String url = "http://127.0.0.1:" + prometheus.getAddress().getPort() + "/";
        cluster.policy("{\"reconcileInterval\":\"120s\",\"settleTime\":\"5s\",\"telemetry\":{\"prometheus\":{\"url\":\"" + url
                + "\",\"timeout\":\"30s\",\"queries\":{\"packagePowerWatts\":\"node_power\",\"cpuTemperatureCelsius\":\"node_temp\"}}}}");
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> inFlight.get() > 0);
        long heldSince = firstQueryNanos.get();
        Thread.sleep(2_000); // well inside the tick's telemetry read

        Pod pinned = SchedulingIT.pod("pinned-perf", "performance");
        pinned.getMetadata().setNamespace(NS);
        pinned.getSpec().setNodeName(ecoNode);
        long pinnedAt = System.nanoTime();
        cluster.admin.resource(pinned).create();
        await().atMost(RESCUE_BOUND.plusSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
            NodePowerProfile npp = cluster.admin.resources(NodePowerProfile.class)
                    .withName(JoulieApi.nodePowerProfileName(ecoNode)).get();
            return npp.getSpec().profile() == Profile.PERFORMANCE;
        });
        Duration rescued = Duration.ofNanos(System.nanoTime() - pinnedAt);
        int stillHeld = inFlight.get();
        Duration held = Duration.ofNanos(System.nanoTime() - heldSince);
        System.out.printf("performance-only Pod on eco node %s: the performance cap asked %d ms after the Pod was created, "
                + "while the tick had been held in its telemetry read for %d ms (%d queries in flight)%n", ecoNode,
                rescued.toMillis(), held.toMillis(), stillHeld);

        assertThat(stillHeld).as("the tick is still held in Prometheus when the rescue has landed").isPositive();
        assertThat(rescued).as("the rescue's bound (docs/reliability.md)").isLessThan(RESCUE_BOUND);
        assertThat(cluster.states().get(ecoNode)).isEqualTo("DrainingPerformance");

        // the held tick goes on: it reads until its telemetry budget (half the interval) is spent, then plans and writes
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
                .until(() -> unreachable(operator) > unreachableBefore);
        Duration tickHeld = Duration.ofNanos(System.nanoTime() - heldSince);
        System.out.printf("the tick was held in its telemetry read for %d ms%n", tickHeld.toMillis());
        assertThat(tickHeld).as("held by Prometheus for the telemetry budget, not the four queries' 100 s")
                .isBetween(Duration.ofSeconds(58), Duration.ofSeconds(75));
    }

    /** Telemetry reads the operator gave up as unreachable (its budget spent), so far. */
    static double unreachable(io.joulie.harness.JavaApp operator) {
        String metrics = operator.get("/q/metrics");
        return metrics == null ? -1 : io.joulie.testkit.PrometheusText.sum(metrics, "joulie_telemetry_reads_total",
                "result=\"unreachable\"");
    }
}
