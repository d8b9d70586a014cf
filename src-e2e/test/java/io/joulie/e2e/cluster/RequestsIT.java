package io.joulie.e2e.cluster;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Scenario 8, requests per tick measured by the server: from the API server's audit log, a steady cluster costs
 * the operator no request per tick (Lease renewals and open watches apart).
 */
@Order(8)
class RequestsIT extends ClusterScenario {
    static final int TICKS = 5;

    @Test
    void aSteadyClusterCostsNoRequestPerTick() throws Exception {
        cluster.policy("{\"type\":\"static_partition\",\"staticHpFrac\":0.5}");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).until(() ->
                cluster.states().size() == RealCluster.MANAGED.size()
                        && cluster.states().values().stream().filter("ActivePerformance"::equals).count() == 3);
        Thread.sleep(3_000); // status writes of the last moves, Events
        Instant from = Instant.now();
        Thread.sleep(TICKS * 2_000L); // the suite plans every 2 s
        Instant to = Instant.now();
        String operator = AuditLog.serviceAccount(RealCluster.NAMESPACE, RealCluster.OPERATOR_SA);
        List<AuditLog.Entry> window = AuditLog.read(cluster.controlPlane.auditLog()).stream()
                .filter(e -> e.user().equals(operator) && e.at().isAfter(from) && e.at().isBefore(to) && !e.watch())
                .toList();
        List<AuditLog.Entry> planning = window.stream().filter(e -> !e.lease()).toList();
        System.out.printf("steady cluster, %d ticks: %d requests by the operator, %d of them Lease renewals%n", TICKS,
                window.size(), window.size() - planning.size());
        assertThat(planning).as("requests other than Lease renewals in %d steady ticks", TICKS).isEmpty();
        assertThat(window).as("the leader renews its Lease").isNotEmpty();
    }
}
