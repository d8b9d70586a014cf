package io.joulie.e2e.cluster;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;

/**
 * A scenario on the suite's real control plane that starts from Joulie installed, the managed kwok nodes present
 * and an operator running ({@link RealCluster#running()}).
 */
@ExtendWith(RealCluster.Extension.class)
abstract class ClusterScenario {
    static RealCluster cluster;

    @BeforeAll
    static void joinCluster(RealCluster c) throws IOException {
        cluster = c;
        cluster.running();
    }

    /**
     * After a scenario whose agents have stopped for good: the node-scoped TelemetryProfiles they reported in go too.
     * A stale report holds the closed loop of the next scenarios, as it should on a cluster whose agent is gone: a
     * node going up keeps its eco label until its agent confirms the performance cap (decision 102).
     */
    static void removeAgentReports() {
        if (cluster != null) {
            cluster.kubectl(null, "delete", "telemetryprofiles", "-l", "app.kubernetes.io/managed-by=joulie-agent",
                    "--ignore-not-found", "--wait=true").ok();
        }
    }

    /** After a scenario that made Pods in a namespace and changed {@code spec.policy}: both go. */
    static void removeNamespaceAndPolicy(String namespace) {
        if (cluster != null) {
            cluster.kubectl(null, "delete", "namespace", namespace, "--wait=false");
            cluster.policy("null");
        }
    }
}
