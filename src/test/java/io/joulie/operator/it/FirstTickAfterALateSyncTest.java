package io.joulie.operator.it;

import io.joulie.testkit.ServerSideApplyDispatcher;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import org.junit.jupiter.api.Test;

import java.util.function.Consumer;

/** The Pod watch's first LISTs fail: the informer retries, and its sync comes seconds after the scheduler's first tick. */
@QuarkusTest
@WithKubernetesTestServer(setup = FirstTickAfterALateSyncTest.Setup.class)
@TestProfile(FirstTick.HourlyPlanning.class)
class FirstTickAfterALateSyncTest extends FirstTick {
    public static class Setup implements Consumer<KubernetesServer> {
        @Override
        public void accept(KubernetesServer server) {
            ServerSideApplyDispatcher.install(server.getKubernetesMockServer());
            nodes(server);
            server.expect().get().withPath("/api/v1/pods?limit=500").andReturn(500, "{}").times(3);
        }
    }

    @Test
    void plansOnceTheWatchesHaveSynced() {
        assertPlannedWithinSeconds(30);
    }
}
