package io.joulie.operator.it;

import io.joulie.api.v1alpha1.NodePowerProfileSpec;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.testkit.ServerSideApplyDispatcher;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static io.joulie.operator.it.Cluster.metric;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * DOWNGRADE_ESCALATION=evict: after the timeout the performance-only pods are evicted through the
 * Eviction API. The mock server does not emulate evictions, so the test answers them per pod: 201 for
 * one (the test then deletes it, as the API server would) and 429 for the other, as a
 * PodDisruptionBudget that allows no disruption does. (In CRUD mode the mock serves {@code always()}
 * expectations but not {@code once()}, and a responder object from the test hangs it, so each pod
 * gets one fixed answer.)
 */
@QuarkusTest
@WithKubernetesTestServer(setup = ServerSideApplyDispatcher.Setup.class)
@TestProfile(EvictionTest.Evict.class)
class EvictionTest extends TickedOperatorTest {
    public static class Evict implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("joulie.downgrade-escalation", "evict", "joulie.downgrade-timeout", "2s");
        }
    }

    static final String EVICTION_ACCEPTED = "/api/v1/namespaces/work/pods/pa/eviction";
    static final String EVICTION_REFUSED = "/api/v1/namespaces/work/pods/pz/eviction";
    static final String REFUSED = """
            {"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests",
             "message":"Cannot evict pod as it would violate the pod's disruption budget.","code":429}""";
    static final String ACCEPTED = """
            {"kind":"Status","apiVersion":"v1","status":"Success","code":201}""";

    @KubernetesTestServer
    KubernetesServer server;
    @Test
    void evictsPerformancePodsRetriesRefusalsAndCommitsEcoWhenClear() {
        server.expect().post().withPath(EVICTION_ACCEPTED).andReturn(201, ACCEPTED).always();
        server.expect().post().withPath(EVICTION_REFUSED).andReturn(429, REFUSED).always();
        assertThat(metric("joulie_evictions_total")).isZero();
        cluster.pod("work", "pa", "node-a", "performance");
        cluster.pod("work", "pz", "node-a", "performance");
        cluster.pod("work", "pb", "node-b", "performance");
        cluster.managedNode("node-a");
        cluster.managedNode("node-b");
        ticks.tick();
        assertThat(cluster.state("node-a")).isEqualTo(PowerState.DrainingPerformance);
        Instant drainStarted = Instant.parse(cluster.profile("node-a").getStatus().since());
        ticks.advance(Duration.ofMillis(1999));
        ticks.tick();
        assertThat(metric("joulie_evictions_total")).as("no eviction before the 2s timeout").isZero();

        // After the timeout both pods are asked to leave: pa is accepted, pz refused by its budget.
        ticks.advance(Duration.ofMillis(1));
        ticks.tick();
        assertThat(metric("joulie_evictions_total", "result=\"evicted\"")).isPositive();
        assertThat(cluster.events("PodsEvicted")).isNotEmpty().allSatisfy(e -> assertThat(e.getMessage())
                .startsWith("Evicted 1 performance-only pod").doesNotContain("work/pa"));
        // Not before the timeout: the Event's time against the drain's start.
        assertThat(cluster.events("PodsEvicted")).allSatisfy(e -> assertThat(Instant.parse(e.getFirstTimestamp()))
                .as("no eviction before the 2s timeout").isAfterOrEqualTo(drainStarted.plusSeconds(2)));
        client.pods().inNamespace("work").withName("pa").delete(); // what the API server does for an accepted eviction

        // The refusal is retried every tick; the node keeps draining (performance cap) meanwhile.
        ticks.tick(2);
        assertThat(metric("joulie_evictions_total", "result=\"refused\"")).isGreaterThanOrEqualTo(3);
        assertThat(cluster.events("EvictionRefused")).isNotEmpty().allSatisfy(e -> assertThat(e.getMessage())
                .contains("1 performance-only pod").doesNotContain("work/pz"));
        assertThat(cluster.events("EvictionRefused")).as("one Warning while the same pod keeps being refused").hasSize(1);
        assertThat(cluster.profile("node-a").getStatus().reason())
                .isEqualTo("evicting 1 performance-only pod after draining longer than 2s");
        assertThat(cluster.state("node-a")).isEqualTo(PowerState.DrainingPerformance);
        assertThat(cluster.profile("node-a").getSpec().cpu()).isEqualTo(NodePowerProfileSpec.CpuPower.percent(100));
        assertThat(metric("joulie_transitions_total", "from=\"DrainingPerformance\"", "outcome=\"evicted\"")).isGreaterThanOrEqualTo(3);

        cluster.finish("work", "pz"); // the budget's owner lets its pod complete
        ticks.advance(Ticks.SETTLE);
        ticks.tick();

        assertThat(cluster.state("node-a")).isEqualTo(PowerState.ActiveEco);
        assertThat(cluster.label("node-a")).isEqualTo("eco");
        assertThat(metric("joulie_transitions_total", "outcome=\"forced\"")).isZero();
        assertThat(cluster.state("node-b")).isEqualTo(PowerState.ActivePerformance);
    }
}
