package io.joulie.operator.it;

import io.joulie.api.v1alpha1.Profile;
import io.joulie.testkit.ServerSideApplyDispatcher;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** An unknown POLICY_TYPE plans with static_partition and says so in a Warning Event. */
@QuarkusTest
@WithKubernetesTestServer(setup = ServerSideApplyDispatcher.Setup.class)
@TestProfile(UnknownPolicyTest.Bogus.class)
class UnknownPolicyTest extends TickedOperatorTest {
    public static class Bogus implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("joulie.policy-type", "carbon_magic_v9", "joulie.static-hp-frac", "0.5");
        }
    }

    @Test
    void fallsBackToStaticPartitionWithAWarningEvent() {
        List<String> nodes = List.of("n1", "n2", "n3", "n4");
        nodes.forEach(cluster::managedNode);
        ticks.tick();
        ticks.advance(Ticks.SETTLE);
        ticks.tick();
        nodes.forEach(n -> assertThat(cluster.state(n)).as(n).isNotNull());
        // the two downgrades commit eco after draining for a tick
        assertThat(nodes).filteredOn(n -> cluster.profile(n).getSpec().profile() == Profile.PERFORMANCE).hasSize(2);
        assertThat(nodes).allSatisfy(n -> assertThat(cluster.profile(n).getSpec().policy().name())
                .isEqualTo("static_partition"));
        assertThat(client.v1().events().inAnyNamespace().list().getItems())
                .filteredOn(e -> "UnknownPolicy".equals(e.getReason()))
                .singleElement().satisfies(e -> {
                    assertThat(e.getType()).isEqualTo("Warning");
                    assertThat(e.getMessage()).contains("carbon_magic_v9").contains("static_partition");
                });
    }
}
