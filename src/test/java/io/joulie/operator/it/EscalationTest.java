package io.joulie.operator.it;

import io.joulie.api.v1alpha1.NodePowerProfileSpec;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.testkit.ServerSideApplyDispatcher;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static io.joulie.operator.it.Cluster.metric;
import static org.assertj.core.api.Assertions.assertThat;

/** DOWNGRADE_ESCALATION=force: a drain that outlasts the timeout commits eco with a Warning Event. */
@QuarkusTest
@WithKubernetesTestServer(setup = ServerSideApplyDispatcher.Setup.class)
@TestProfile(EscalationTest.Force.class)
class EscalationTest extends TickedOperatorTest {
    public static class Force implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("joulie.downgrade-escalation", "force", "joulie.downgrade-timeout", "3s");
        }
    }

    @Test
    void forceCommitsEcoAfterTheTimeoutDespitePerformancePods() {
        assertThat(metric("joulie_transitions_total", "outcome=\"forced\"")).isZero();
        cluster.pod("work", "pa", "node-a", "performance");
        cluster.pod("work", "pb", "node-b", "performance");
        cluster.managedNode("node-a");
        cluster.managedNode("node-b");
        ticks.tick();
        assertThat(cluster.state("node-a")).isEqualTo(PowerState.DrainingPerformance);
        ticks.advance(Duration.ofMillis(2999));
        ticks.tick();
        assertThat(cluster.state("node-a")).as("before the timeout").isEqualTo(PowerState.DrainingPerformance);
        assertThat(metric("joulie_transitions_total", "outcome=\"forced\"")).isZero();

        ticks.advance(Duration.ofMillis(1));
        ticks.tick();
        // The forced reason lasts one tick (then "selected for eco ..."); the Event keeps it.
        assertThat(cluster.state("node-a")).isEqualTo(PowerState.ActiveEco);

        var npp = cluster.profile("node-a");
        assertThat(npp.getSpec().profile()).isEqualTo(Profile.ECO);
        assertThat(npp.getSpec().cpu()).isEqualTo(NodePowerProfileSpec.CpuPower.percent(60));
        assertThat(cluster.label("node-a")).isEqualTo("eco");
        assertThat(cluster.events("DowngradeForced")).singleElement().satisfies(e -> {
            assertThat(e.getType()).isEqualTo("Warning");
            assertThat(e.getInvolvedObject().getName()).isEqualTo("node-node-a");
            assertThat(e.getMessage()).isEqualTo("DrainingPerformance -> ActiveEco: forced to eco after draining longer "
                    + "than 3s; still running 1 performance-only pod");
        });
        assertThat(metric("joulie_transitions_total", "from=\"DrainingPerformance\"", "to=\"ActiveEco\"",
                "outcome=\"forced\"")).isEqualTo(1);
        // node-b keeps its performance pod on performance supply.
        assertThat(cluster.state("node-b")).isEqualTo(PowerState.ActivePerformance);
        // the pod force left under the eco cap is recorded, and the contract watchdog leaves it alone
        assertThat(npp.getStatus().forcedPods()).containsExactly("work/pa");
        ticks.watchdog();
        assertThat(cluster.state("node-a")).isEqualTo(PowerState.ActiveEco);
        assertThat(cluster.events("ContractViolation")).isEmpty();
        ticks.tick();
        assertThat(cluster.state("node-a")).isEqualTo(PowerState.ActiveEco);
        assertThat(cluster.profile("node-a").getStatus().forcedPods()).containsExactly("work/pa");
    }
}
