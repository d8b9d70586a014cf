package io.joulie.api.v1alpha1;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** The joulie.io API helpers: NodePowerProfile names, power states and their labels. */
class ApiNamingTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "Worker_01, node-worker-01",
            "worker-01, node-worker-01",
            "ip-10-0-0-1.ec2.internal, node-ip-10-0-0-1-ec2-internal",
            "GPU.Node.A, node-gpu-node-a",
            "a:b/c d, node-a-b-c-d",
            "kind-control-plane, node-kind-control-plane",
            "n, node-n",
            "ÄBC, node--bc",      // non-ASCII letters are replaced too
    })
    void nodePowerProfileName(String node, String expected) {
        String name = JoulieApi.nodePowerProfileName(node);

        assertThat(name).isEqualTo(expected);
        assertThat(name).matches("[a-z0-9-]+");
    }

    @ParameterizedTest(name = "{0}: profile {1}, label {2}")
    @CsvSource({
            "ActivePerformance, PERFORMANCE, performance",
            "DrainingPerformance, PERFORMANCE, draining-performance",
            "ActiveEco, ECO, eco",
    })
    void powerStateProfileAndLabel(PowerState state, Profile profile, String label) {
        assertThat(state.profile()).isEqualTo(profile);
        assertThat(state.labelValue()).isEqualTo(label);
    }

    @org.junit.jupiter.api.Test
    void longNodeNamesAreShortenedToAValidUniqueName() {
        String base = "n".repeat(260);
        String a = JoulieApi.nodePowerProfileName(base + "a");
        String b = JoulieApi.nodePowerProfileName(base + "b");

        assertThat(a).hasSize(253).startsWith("node-nnn").matches("[a-z0-9-]+");
        assertThat(b).hasSize(253).isNotEqualTo(a);
        assertThat(JoulieApi.nodePowerProfileName("n".repeat(248))).hasSize(253).doesNotContain("--");
    }
}
