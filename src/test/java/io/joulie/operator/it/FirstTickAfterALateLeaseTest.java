package io.joulie.operator.it;

import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.joulie.testkit.ServerSideApplyDispatcher;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import org.junit.jupiter.api.Test;

import java.time.ZonedDateTime;
import java.util.function.Consumer;

/** Another replica holds the Lease at start; this one leads only once it has expired, long after the first tick. */
@QuarkusTest
@WithKubernetesTestServer(setup = FirstTickAfterALateLeaseTest.Setup.class)
@TestProfile(FirstTick.HourlyPlanning.class)
class FirstTickAfterALateLeaseTest extends FirstTick {
    public static class Setup implements Consumer<KubernetesServer> {
        @Override
        public void accept(KubernetesServer server) {
            ServerSideApplyDispatcher.install(server.getKubernetesMockServer());
            nodes(server);
            server.getClient().resource(new LeaseBuilder().withNewMetadata().withName("joulie-operator-leader")
                    .withNamespace("joulie-system").endMetadata().withNewSpec().withHolderIdentity("another-replica")
                    .withLeaseDurationSeconds(4).withAcquireTime(ZonedDateTime.now()).withRenewTime(ZonedDateTime.now())
                    .endSpec().build()).create();
        }
    }

    @Test
    void plansOnceThisReplicaLeads() {
        assertPlannedWithinSeconds(30);
    }
}
