package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.joulie.api.v1alpha1.NodePowerProfile;
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
     * After a scenario whose agents have stopped for good: their answers ({@code status.applied} of every
     * NodePowerProfile) and the nodes' NodeHardware go too. A stale answer, or a NodeHardware saying an agent serves the
     * node, holds the closed loop of the next scenarios, as it should on a cluster whose agent is gone: a node going up
     * keeps its eco label until its agent confirms the performance cap (decisions 102, 129).
     */
    static void removeAgentReports() {
        if (cluster != null) {
            cluster.kubectl(null, "delete", "nodehardwares", "--all", "--ignore-not-found", "--wait=true").ok();
            for (NodePowerProfile npp : cluster.admin.resources(NodePowerProfile.class).list().getItems()) {
                if (npp.getStatus() != null && npp.getStatus().applied() != null) {
                    cluster.admin.resources(NodePowerProfile.class).withName(npp.getMetadata().getName()).subresource("status")
                            .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"applied\":null}}");
                }
            }
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
