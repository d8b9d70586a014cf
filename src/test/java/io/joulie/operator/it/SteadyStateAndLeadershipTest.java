package io.joulie.operator.it;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.operator.runtime.LeaderElection;
import io.joulie.testkit.ServerSideApplyDispatcher;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static io.joulie.operator.it.Cluster.WAIT;
import static io.joulie.operator.it.Cluster.metric;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

/** A converged cluster costs no API requests per tick; only the Lease holder plans; the probes report it. */
@QuarkusTest
@WithKubernetesTestServer(setup = ServerSideApplyDispatcher.Setup.class)
class SteadyStateAndLeadershipTest extends OperatorTest {
    static final String LEASE_NS = "joulie-system";
    static final String LEASE = "joulie-operator-leader";

    @KubernetesTestServer
    KubernetesServer server;
    @Inject
    LeaderElection leader;

    @BeforeEach
    void awaitLeadership() {
        await().atMost(WAIT).until(leader::isLeader);
    }

    @Test
    void steadyStatePerformsNoApiRequestsPerTick() throws Exception {
        // pods first: a tick between the two must not see busy nodes as idle
        cluster.pod("work", "p0", "steady-0", "performance");
        cluster.pod("work", "p1", "steady-1", "performance");
        cluster.pod("work", "p2", "steady-2", null);
        for (int i = 0; i < 6; i++) {
            cluster.managedNode("steady-" + i);
        }
        await().atMost(WAIT).untilAsserted(() -> {
            for (int i = 0; i < 6; i++) {
                assertThat(cluster.state("steady-" + i)).isNotNull();
                assertThat(cluster.label("steady-" + i)).isNotNull();
            }
        });
        // Converged when two ticks in a row wrote nothing.
        await().atMost(WAIT).until(this::twoTicksWithoutWrites);

        drainRequests();
        double ticks = metric("joulie_ticks_total", "result=\"ok\"");
        double writes = metric("joulie_api_writes_total");
        await().atMost(WAIT).until(() -> metric("joulie_ticks_total", "result=\"ok\"") >= ticks + 3);
        List<String> requests = drainRequests();

        assertThat(requests).as("API requests during 3 steady ticks (Lease renewals and watches excluded)").isEmpty();
        assertThat(metric("joulie_api_writes_total")).isEqualTo(writes);
        // Still the same decisions: 3 of 6 planned eco, and 0 and 1 keep their pods on the performance cap. The pod
        // watch and the node watch are separate connections: when a tick saw a node before its pod, the node was
        // planned eco and holds in DrainingPerformance (a drain in progress stays eco-ranked, EcoSelection) with
        // the performance cap, and another node stays performance.
        for (String node : List.of("steady-0", "steady-1")) {
            assertThat(cluster.state(node)).as(node + " runs a performance-only pod")
                    .isIn(PowerState.ActivePerformance, PowerState.DrainingPerformance);
        }
        assertThat(List.of(0, 1, 2, 3, 4, 5)).as("nodes planned eco")
                .filteredOn(i -> cluster.state("steady-" + i) != PowerState.ActivePerformance).hasSize(3);
    }

    private boolean twoTicksWithoutWrites() {
        double writes = metric("joulie_api_writes_total");
        double ticks = metric("joulie_ticks_total", "result=\"ok\"");
        await().atMost(WAIT).until(() -> metric("joulie_ticks_total", "result=\"ok\"") >= ticks + 2);
        return metric("joulie_api_writes_total") == writes;
    }

    /** Requests the mock server received since the last call, minus Lease traffic and watch (re)connections. */
    private List<String> drainRequests() throws InterruptedException {
        List<String> seen = new ArrayList<>();
        RecordedRequest r;
        while ((r = server.getKubernetesMockServer().takeRequest(10, TimeUnit.MILLISECONDS)) != null) {
            String path = r.getPath();
            if (!path.contains("/leases") && !path.contains("watch=true")) {
                seen.add(r.getMethod() + " " + path);
            }
        }
        return seen;
    }

    @Test
    void onlyTheLeaseHolderPlans() {
        // Another replica takes the Lease and keeps renewing it, as a live leader does.
        ScheduledExecutorService otherReplica = Executors.newSingleThreadScheduledExecutor();
        otherReplica.scheduleWithFixedDelay(this::holdLease, 0, 200, TimeUnit.MILLISECONDS);
        try {
            await().atMost(WAIT).until(() -> !leader.isLeader());
            assertStandbyWritesNothing();
        } finally {
            otherReplica.shutdownNow();
        }
        // The other replica is gone; its Lease expires and this one takes over.
        await().atMost(WAIT).until(leader::isLeader);
        await().atMost(WAIT).untilAsserted(() -> assertThat(cluster.state("while-standby")).isNotNull());
        assertThat(metric("joulie_leader")).isEqualTo(1);
    }

    private void assertStandbyWritesNothing() {
        assertThat(metric("joulie_leader")).isZero();
        double standby = metric("joulie_ticks_total", "result=\"standby\"");

        cluster.managedNode("while-standby");
        await().atMost(WAIT).until(() -> metric("joulie_ticks_total", "result=\"standby\"") >= standby + 3);
        assertThat(cluster.profile("while-standby")).as("a standby replica writes nothing").isNull();
        given().port(Cluster.managementPort()).get("/q/health/live").then().statusCode(200);
    }

    private void holdLease() {
        try {
            Lease lease = client.resources(Lease.class).inNamespace(LEASE_NS).withName(LEASE).get();
            lease.getSpec().setHolderIdentity("another-replica");
            lease.getSpec().setRenewTime(ZonedDateTime.now());
            client.resource(lease).update();
        } catch (RuntimeException e) {
            // a conflict with this replica's renewal: the next round wins
        }
    }

    @Test
    void probesReportTheLoopAndTheWatches() {
        given().port(Cluster.managementPort()).get("/q/health/ready").then().log().ifValidationFails().statusCode(200)
                .body("checks.find { it.name == 'cluster-watches' }.status", equalTo("UP"));
        given().port(Cluster.managementPort()).get("/q/health/live").then().statusCode(200)
                .body("checks.find { it.name == 'planner-loop' }.status", equalTo("UP"))
                .body("checks.find { it.name == 'planner-loop' }.data.leader", equalTo(true));
    }
}
