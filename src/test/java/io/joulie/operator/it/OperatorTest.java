package io.joulie.operator.it;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.joulie.operator.cluster.ClusterView;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;

/** Base of the tests that drive the real operator on the mock API server: an empty cluster per test. */
abstract class OperatorTest {
    @Inject
    KubernetesClient client;
    @Inject
    ClusterView view;

    Cluster cluster;

    @BeforeEach
    void resetCluster() {
        cluster = new Cluster(client, view);
        quiesce();
        cluster.reset();
        afterReset();
    }

    /** Stops what would write on its own during the reset (the ticked tests take the tick first). */
    void quiesce() {
    }

    /** Runs on the empty cluster. */
    void afterReset() {
    }
}
