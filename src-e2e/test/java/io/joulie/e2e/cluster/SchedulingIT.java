package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.joulie.api.v1alpha1.JoulieApi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Scenario 4, real scheduling, the key promise: the real kube-scheduler places Pods on kwok nodes by the labels
 * the operator writes. While the operator moves nodes down to eco and back, a stream of performance-only Pods is
 * created; a watch over the whole run checks at every event that no performance-only Pod is bound to a node whose
 * NodePowerProfile says eco.
 */
@Order(4)
class SchedulingIT extends ClusterScenario {
    static final String NS = "e2e-scheduling";

    @BeforeAll
    static void start() throws Exception {
        cluster.namespace(NS);
    }

    @AfterAll
    static void cleanUp() {
        removeNamespaceAndPolicy(NS);
    }

    static Pod pod(String name, String profile) {
        PodBuilder b = new PodBuilder().withNewMetadata().withName(name).withNamespace(NS).endMetadata()
                .withNewSpec().addNewContainer().withName("work").withImage("registry.invalid/work:1").endContainer()
                .withTerminationGracePeriodSeconds(0L).endSpec();
        if (profile != null) {
            b.editSpec().withNodeSelector(Map.of(JoulieApi.POWER_PROFILE_LABEL, profile)).endSpec();
        }
        return b.build();
    }

    @Test
    void noPerformanceOnlyPodIsEverBoundToAnEcoNode() throws Exception {
        int nodes = RealCluster.MANAGED.size();
        cluster.policy("{\"type\":\"static_partition\",\"staticHpFrac\":1.0}");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> cluster.states().values().stream().filter("ActivePerformance"::equals).count() == nodes);

        try (ContractRecorder recorder = new ContractRecorder(cluster.admin, NS)) {
            ExecutorService creator = Executors.newSingleThreadExecutor();
            Future<?> stream = creator.submit(() -> {
                for (int i = 0; i < 60; i++) {
                    cluster.admin.resource(pod("perf-" + i, "performance")).create();
                    if (i % 3 == 0) {
                        cluster.admin.resource(pod("any-" + i, null)).create();
                    }
                    try {
                        Thread.sleep(150);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            });
            // down to 2 performance nodes while the Pods arrive, back up, and down again
            Thread.sleep(1_000);
            cluster.policy("{\"staticHpFrac\":0.34}");
            Thread.sleep(3_000);
            cluster.policy("{\"staticHpFrac\":1.0}");
            Thread.sleep(2_000);
            cluster.policy("{\"staticHpFrac\":0.34}");
            stream.get(60, TimeUnit.SECONDS);
            creator.shutdown();

            // every performance-only Pod is placed, on a node labelled performance when the scheduler chose it
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(cluster.admin.pods().inNamespace(NS).list().getItems())
                            .allSatisfy(p -> assertThat(p.getStatus().getPhase()).as(p.getMetadata().getName()).isEqualTo("Running")));
            // the plan settles: nodes planned eco that run performance-only Pods drain (escalation hold), none is eco under them
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(cluster.states().values().stream().filter("ActivePerformance"::equals).count()).isEqualTo(2));

            // the Pods go; the draining nodes commit eco; eco-only Pods then land only there
            cluster.admin.pods().inNamespace(NS).withGracePeriod(0).delete();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(cluster.states().values().stream().filter("ActiveEco"::equals).count()).isEqualTo(nodes - 2));
            for (int i = 0; i < 8; i++) {
                cluster.admin.resource(pod("eco-" + i, "eco")).create();
                cluster.admin.resource(pod("late-perf-" + i, "performance")).create();
            }
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                List<Pod> placed = cluster.admin.pods().inNamespace(NS).list().getItems();
                Map<String, String> states = cluster.states();
                assertThat(placed).hasSize(16).allSatisfy(p -> {
                    assertThat(p.getSpec().getNodeName()).as(p.getMetadata().getName()).isNotNull();
                    String expected = ContractRecorder.performanceOnly(p) ? "ActivePerformance" : "ActiveEco";
                    assertThat(states.get(p.getSpec().getNodeName())).as(p.getMetadata().getName()).isEqualTo(expected);
                });
            });

            List<Long> lags = recorder.bindingLagMillis().stream().sorted().toList();
            System.out.printf("scheduler binding lag over %d Pods: median %d ms, max %d ms%n", lags.size(),
                    lags.get(lags.size() / 2), lags.getLast());
            System.out.println("profile changes: " + recorder.profileChanges());
            assertThat(recorder.violations()).as("performance-only Pods bound to eco nodes").isEmpty();
        }
    }
}
