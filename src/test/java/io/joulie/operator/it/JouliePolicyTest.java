package io.joulie.operator.it;

import io.fabric8.kubernetes.api.model.Condition;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.api.v1alpha1.JoulieStatus;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.CpuPower;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.operator.config.OperatorSettings;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.PolicyType;
import io.joulie.testkit.ServerSideApplyDispatcher;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.joulie.operator.it.Cluster.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * spec.policy of the Joulie resource overrides the environment defaults while the operator runs;
 * status.effectivePolicy shows what is in force, an invalid spec.policy keeps it, and the status counts
 * nodes by state and lists the nodes probing left out.
 */
@QuarkusTest
@WithKubernetesTestServer(setup = ServerSideApplyDispatcher.Setup.class)
class JouliePolicyTest extends TickedOperatorTest {
    static final List<String> NODES = List.of("n1", "n2", "n3", "n4");

    @Inject
    OperatorSettings defaults;

    @BeforeEach
    @AfterEach
    void noInstallation() {
        cluster.noJoulie(loop, defaults, ticks::tick);
    }


    JoulieStatus status() {
        Joulie j = client.resources(Joulie.class).withName("joulie").get();
        return j == null ? null : j.getStatus();
    }

    Condition condition(String type) {
        JoulieStatus s = status();
        return s == null || s.conditions() == null ? null
                : s.conditions().stream().filter(c -> c.getType().equals(type)).findFirst().orElse(null);
    }

    static JoulieSpec.Policy policy(Double staticFrac, Double perfCap, Double ecoCap, String type) {
        return JoulieSpec.Policy.of("type", type, "staticHpFrac", staticFrac, "performanceCapWatts", perfCap,
                "ecoCapWatts", ecoCap);
    }

    long eco() {
        return NODES.stream().filter(n -> cluster.profile(n) != null && cluster.profile(n).getSpec().profile() == Profile.ECO).count();
    }

    @Test
    void specPolicyOverridesTheDefaultsAndAnInvalidOneKeepsTheSettingsInForce() {
        NODES.forEach(cluster::managedNode);
        cluster.joulie(null);
        // Defaults: static_partition 0.5 → 2 of 4 eco at 60 % of their packages' maximum.
        ticks.tick();
        ticks.advance(Ticks.SETTLE);
        ticks.tick();
        assertThat(eco()).isEqualTo(2);
        await().atMost(WAIT).untilAsserted(() -> {
            JoulieStatus s = status();
            assertThat(s).isNotNull();
            assertThat(s.effectivePolicy().type()).isEqualTo("static_partition");
            assertThat(s.effectivePolicy().staticHpFrac()).isEqualTo(0.5);
            assertThat(s.effectivePolicy().ecoCapPercent()).isEqualTo(60.0);
            assertThat(s.effectivePolicy().ecoCapWatts()).as("one unit per cap in the effective policy").isNull();
            assertThat(s.effectivePolicy().reconcileInterval()).isEqualTo("1s");
            assertThat(s.nodes()).isEqualTo(new JoulieStatus.Nodes(4, 2, 0, 2, 0));
        });

        // Every node performance, at a 400 W performance cap.
        cluster.setJoulieSpec(new JoulieSpec(null, policy(1.0, 400.0, null, null), null));
        ticks.tick();
        assertThat(eco()).isZero();
        assertThat(cluster.profile("n1").getSpec().cpu().packagePowerCapWatts()).isEqualTo(400.0);
        await().atMost(WAIT).untilAsserted(() -> {
            JoulieStatus s = status();
            assertThat(s.effectivePolicy().staticHpFrac()).isEqualTo(1.0);
            assertThat(s.effectivePolicy().performanceCapWatts()).isEqualTo(400.0);
            assertThat(s.effectivePolicy().performanceCapPercent()).as("the watts set in spec.policy are the cap").isNull();
            assertThat(s.effectivePolicy().ecoCapPercent()).isEqualTo(60.0);
            assertThat(s.effectivePolicy().ecoCapWatts()).as("one unit per cap in the effective policy").isNull(); // not set: the default stays
            assertThat(s.nodes()).isEqualTo(new JoulieStatus.Nodes(4, 4, 0, 0, 0));
            assertThat(condition("Degraded").getReason()).isNotEqualTo("InvalidPolicy");
        });
        assertThat(cluster.events("PolicyChanged")).anySatisfy(e ->
                assertThat(e.getInvolvedObject().getKind()).isEqualTo("Joulie"));

        // A nonsense cap and an unknown policy: reported, and the settings in force stay.
        cluster.setJoulieSpec(new JoulieSpec(null, policy(0.0, null, -5.0, "fastest"), null));
        ticks.tick();
        await().atMost(WAIT).untilAsserted(() -> {
            Condition degraded = condition("Degraded");
            assertThat(degraded.getStatus()).isEqualTo("True");
            assertThat(degraded.getReason()).isEqualTo("InvalidPolicy");
            assertThat(degraded.getMessage()).contains("spec.policy.ecoCapWatts = -5.0", "spec.policy.type 'fastest'");
            assertThat(status().effectivePolicy().staticHpFrac()).isEqualTo(1.0);
        });
        assertThat(loop.plannerSettings().staticHpFrac()).isEqualTo(1.0);
        assertThat(eco()).isZero();

        // Deleting the resource returns to the environment's settings.
        client.resources(Joulie.class).withName("joulie").delete();
        ticks.tick();
        ticks.advance(Ticks.SETTLE);
        ticks.tick();
        assertThat(eco()).isEqualTo(2);
    }

    /**
     * demand_sized_v1 in the operator: the allocatable CPU it reads from the Nodes and the CPU the pods request (a pending
     * pod that declares eco, a running performance-only one) size the pools; each eco node takes its type's cap.
     */
    @Test
    void demandSizedPolicyCountsTheCpuOfNodesAndPodsAndCapsEcoNodesByType() {
        cluster.typedNode("s1", "small", 16);
        cluster.typedNode("s2", "small", 16);
        cluster.typedNode("b1", "big", 16);
        cluster.typedNode("b2", "big", 16);
        // 8 performance-only cores running on s1: need = ceil(8 x 1.2 / 16) = 1 node; 48 declared cores pending:
        // eco = floor(48 / 16) = 3; hp = max(4 - 3, 1) = 1, and s1 (where the performance pod runs) stays performance
        cluster.podRequesting("default", "serving", "s1", "performance", "8", false);
        cluster.podRequesting("default", "batch", null, null, "48", true);
        await().atMost(WAIT).until(() -> view.cpuDemand().equals(new ClusterContext.CpuDemand(8, 0, 48)));
        cluster.joulie(JoulieSpec.Policy.of("type", "demand_sized_v1", "queueHpMin", 0, "demandHeadroomFrac", 0.2,
                "ecoCapWattsByType", Map.of("big", 300.0)));
        ticks.tick();
        ticks.advance(Ticks.SETTLE);
        ticks.tick();
        assertThat(loop.plannerSettings().policyType()).isEqualTo(PolicyType.DEMAND_SIZED_V1);
        assertThat(List.of("s2", "b1", "b2")).allSatisfy(n -> assertThat(cluster.state(n)).as(n).isEqualTo(PowerState.ActiveEco));
        assertThat(cluster.state("s1")).isEqualTo(PowerState.ActivePerformance);
        assertThat(cluster.profile("s2").getSpec().cpu()).as("no cap of its own: the eco cap, ECO_CAP_PERCENT by default").isEqualTo(CpuPower.percent(60));
        assertThat(cluster.profile("b1").getSpec().cpu().packagePowerCapWatts()).as("big's cap").isEqualTo(300.0);
        assertThat(cluster.profile("b2").getSpec().cpu().packagePowerCapWatts()).isEqualTo(300.0);
        assertThat(cluster.profile("s2").getSpec().policy().name()).isEqualTo("demand_sized_v1");

        // the declared work finishes: no eco pool any more, every node performance
        cluster.finish("default", "batch");
        await().atMost(WAIT).until(() -> view.cpuDemand().equals(new ClusterContext.CpuDemand(8, 0, 0)));
        ticks.tick();
        assertThat(eco()).isZero();
        assertThat(NODES.stream().noneMatch(n -> cluster.profile(n) != null)).isTrue();
        assertThat(List.of("s1", "s2", "b1", "b2")).allSatisfy(n -> assertThat(cluster.state(n)).as(n).isEqualTo(PowerState.ActivePerformance));
    }

    @Test
    void nodesWithoutPowerControlAreLeftOutAndListed() {
        NODES.forEach(cluster::managedNode);
        cluster.node("no-knobs", Map.of(Cluster.MANAGED, "true", JoulieApi.FEATURE_RAPL_WRITABLE, "false",
                JoulieApi.FEATURE_CPUFREQ, "false"));
        // Only one of the two knobs missing: still planned.
        cluster.node("dvfs-only", Map.of(Cluster.MANAGED, "true", JoulieApi.FEATURE_RAPL_WRITABLE, "false",
                JoulieApi.FEATURE_CPUFREQ, "true"));
        cluster.joulie(null);
        ticks.tick();
        await().atMost(WAIT).untilAsserted(() -> {
            JoulieStatus s = status();
            assertThat(s).isNotNull();
            assertThat(s.nodes()).isNotNull();
            assertThat(s.nodes().managed()).isEqualTo(5);
            assertThat(s.nodes().excluded()).isEqualTo(1);
            assertThat(s.excludedNodes()).singleElement().satisfies(x -> {
                assertThat(x.name()).isEqualTo("no-knobs");
                assertThat(x.reason()).isEqualTo("NoPowerControl");
                assertThat(x.message()).contains(JoulieApi.FEATURE_RAPL_WRITABLE);
            });
            assertThat(cluster.profile("dvfs-only")).isNotNull();
        });
        assertThat(cluster.profile("no-knobs")).isNull();
        assertThat(cluster.label("no-knobs")).isNull();

        // Once the agent finds a knob (labels updated), the node is planned.
        client.nodes().withName("no-knobs").edit(n -> { n.getMetadata().getLabels().put(JoulieApi.FEATURE_CPUFREQ, "true"); return n; });
        ticks.tick();
        assertThat(cluster.profile("no-knobs")).isNotNull();
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(status().excludedNodes()).isNull();
            assertThat(status().nodes().excluded()).isZero();
        });
    }
}
