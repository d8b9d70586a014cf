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
 * created; a watch over the whole run keeps, at every event, the books of every performance-only Pod bound to a node
 * whose NodePowerProfile says eco. A Pod bound by the scheduler never is; one bound past the scheduler
 * ({@code spec.nodeName}) onto an eco node is, and for less than one planning interval: the contract watchdog sends the
 * node back to the performance cap. The scheduler's binding lag, and how late after a label stopped saying performance
 * it still bound a performance-only Pod there, are measured: the settle time must outlast both (docs/reliability.md).
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

            // bound past the scheduler onto an eco node: back to the performance cap within one planning interval
            String ecoNode = cluster.states().entrySet().stream().filter(e -> e.getValue().equals("ActiveEco"))
                    .map(Map.Entry::getKey).sorted().findFirst().orElseThrow();
            Pod pinned = pod("pinned-perf", "performance");
            pinned.getSpec().setNodeName(ecoNode);
            long pinnedAt = System.currentTimeMillis();
            cluster.admin.resource(pinned).create();
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                    .until(() -> "DrainingPerformance".equals(cluster.states().get(ecoNode)));
            long rescued = System.currentTimeMillis() - pinnedAt;
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(cluster.admin.v1().events().inNamespace("default")
                    .list().getItems()).anySatisfy(e -> {
                        assertThat(e.getReason()).isEqualTo("ContractViolation");
                        // names the node, not the pod: the Event is in the default namespace (decision 158)
                        assertThat(e.getMessage()).contains(ecoNode).doesNotContain("pinned-perf");
                    }));

            List<Long> lags = recorder.bindingLagMillis().stream().sorted().toList();
            List<Long> late = recorder.lateBindingMillis().stream().sorted().toList();
            System.out.printf("scheduler binding lag over %d Pods: median %d ms, max %d ms; performance-only Pods bound after "
                            + "their node's label left performance: %d, latest %s ms after; pinned Pod rescued in %d ms%n",
                    lags.size(), lags.get(lags.size() / 2), lags.getLast(), late.size(), late.isEmpty() ? "-" : late.getLast(),
                    rescued);
            System.out.println("profile changes: " + recorder.profileChanges());
            System.out.println("under an eco profile: " + recorder.violations());
            assertThat(recorder.violations()).as("performance-only Pods under an eco profile: only the pinned one")
                    .allSatisfy(v -> assertThat(v.pod()).isEqualTo("pinned-perf"));
            assertThat(recorder.violations()).as("and for less than one planning interval (2 s)").singleElement()
                    .satisfies(v -> assertThat(v.millis()).isLessThan(RealCluster.INTERVAL.toMillis()));
            assertThat(late).as("the settle time outlasts the scheduler's late bindings")
                    .allSatisfy(ms -> assertThat(ms).isLessThan(RealCluster.SETTLE.toMillis()));
        }
    }
}
