package io.joulie.operator.it;

import io.fabric8.kubernetes.api.model.Condition;
import io.joulie.api.v1alpha1.CapConfirmation;
import io.joulie.api.v1alpha1.ControlResult;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.api.v1alpha1.JoulieStatus;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.operator.config.OperatorSettings;
import io.joulie.testkit.ServerSideApplyDispatcher;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.joulie.operator.it.Cluster.WAIT;
import static io.joulie.operator.it.Cluster.metric;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The performance contract on the mock API server, the ticks and the watchdog driven by the test: a performance-only
 * pod bound to an eco node sends it back to the performance cap without a tick; on the way up the performance label
 * waits for the agent's report of the performance cap, and a wait past the bound is a Warning and a Degraded status.
 */
@QuarkusTest
@WithKubernetesTestServer(setup = ServerSideApplyDispatcher.Setup.class)
class ContractTest extends TickedOperatorTest {
    @Inject
    OperatorSettings defaults;

    @AfterEach
    void environmentSettingsAgain() {
        cluster.noJoulie(loop, defaults, ticks::tick);
    }

    /** Two nodes at 0.5: node-a eco (first by name), node-b performance. */
    void oneEcoOnePerformance() {
        cluster.managedNode("node-a");
        cluster.managedNode("node-b");
        ticks.tick();
        ticks.advance(Ticks.SETTLE);
        ticks.tick();
        assertThat(cluster.state("node-a")).isEqualTo(PowerState.ActiveEco);
        assertThat(cluster.state("node-b")).isEqualTo(PowerState.ActivePerformance);
    }

    @Test
    void aPerformanceOnlyPodBoundToAnEcoNodeSendsItBackToThePerformanceCapBetweenTicks() {
        oneEcoOnePerformance();
        double violations = metric("joulie_contract_violations_total");
        double ended = metric("joulie_contract_violation_seconds_count");
        double rescues = metric("joulie_transitions_total", "from=\"ActiveEco\"", "to=\"DrainingPerformance\"",
                "outcome=\"rescued\"");

        // bound past the scheduler (spec.nodeName), onto the eco node
        cluster.pod("hpc", "late", "node-a", "performance");
        assertThat(ticks.watchdog()).contains("node-a");

        NodePowerProfile a = cluster.profile("node-a");
        assertThat(a.getStatus().state()).isEqualTo(PowerState.DrainingPerformance);
        assertThat(a.getSpec().profile()).isEqualTo(Profile.PERFORMANCE);
        assertThat(a.getSpec().cpu().packagePowerCapPercent()).isEqualTo(100.0);
        assertThat(a.getStatus().reason()).isEqualTo("1 performance-only pod under the eco cap: back to the "
                + "performance cap, draining");
        assertThat(cluster.label("node-a")).isEqualTo("draining-performance");
        assertThat(cluster.events("ContractViolation")).singleElement().satisfies(e -> {
            assertThat(e.getType()).isEqualTo("Warning");
            assertThat(e.getInvolvedObject().getName()).isEqualTo("node-node-a");
            assertThat(e.getMessage()).startsWith("a performance-only pod runs under the eco cap of node node-a");
        });
        assertThat(metric("joulie_contract_violations_total")).isEqualTo(violations + 1);
        assertThat(metric("joulie_transitions_total", "from=\"ActiveEco\"", "to=\"DrainingPerformance\"", "outcome=\"rescued\""))
                .isEqualTo(rescues + 1);
        // no agent reports for node-a: the performance cap asked for is the end of the violation
        assertThat(metric("joulie_contract_violation_seconds_count")).isEqualTo(ended + 1);

        // the pod stays: the plan still wants node-a eco, so it drains; once the pod is gone it settles and commits
        ticks.tick();
        assertThat(cluster.state("node-a")).isEqualTo(PowerState.DrainingPerformance);
        cluster.finish("hpc", "late");
        ticks.watchdog();
        assertThat(cluster.state("node-a")).as("the settle time counts from the pod leaving").isEqualTo(PowerState.DrainingPerformance);
        ticks.advance(Ticks.SETTLE);
        assertThat(ticks.watchdog()).as("its settle time has come: no tick needed").contains("node-a");
        assertThat(cluster.state("node-a")).isEqualTo(PowerState.ActiveEco);
        assertThat(cluster.label("node-a")).isEqualTo("eco");
        assertThat(cluster.events("ContractViolation")).hasSize(1);
    }

    @Test
    void aNodeRelabelledByHandIsPutBackAtOnce() {
        oneEcoOnePerformance();
        client.nodes().withName("node-a").edit(n -> {
            n.getMetadata().getLabels().put("joulie.io/power-profile", "performance");
            return n;
        });

        assertThat(ticks.watchdog()).contains("node-a");

        assertThat(cluster.label("node-a")).isEqualTo("eco");
        assertThat(cluster.state("node-a")).isEqualTo(PowerState.ActiveEco);
    }

    @Test
    void onTheWayUpTheLabelWaitsForTheAgentsReportOfThePerformanceCap() {
        oneEcoOnePerformance();
        long ecoGeneration = cluster.profile("node-a").getMetadata().getGeneration();
        cluster.agentReports("node-a", ecoGeneration, ControlResult.APPLIED, 120);
        cluster.joulie(JoulieSpec.Policy.of("staticHpFrac", 1.0));

        ticks.tick();

        NodePowerProfile a = cluster.profile("node-a");
        assertThat(a.getStatus().state()).isEqualTo(PowerState.ActivePerformance);
        assertThat(a.getSpec().profile()).as("the cap goes up first").isEqualTo(Profile.PERFORMANCE);
        assertThat(cluster.label("node-a")).as("the label waits for the agent").isEqualTo("eco");
        assertThat(a.getSpec().cpu().packagePowerCapPercent()).isEqualTo(100.0);
        assertThat(a.getStatus().applied().cpu().watts()).as("the agent's answer, for the eco generation").isEqualTo(120.0);
        assertThat(a.getStatus().applied().generation()).isLessThan(a.getMetadata().getGeneration());
        assertThat(a.getStatus().agent()).isEqualTo(CapConfirmation.Waiting);
        assertThat(a.getStatus().agentMessage()).contains("waiting for the agent to apply the performance cap");
        assertThat(cluster.profile("node-b").getStatus().agent()).as("no agent serves node-b")
                .isEqualTo(CapConfirmation.Unreported);
        assertThat(metric("joulie_performance_caps_unconfirmed", "reason=\"waiting\"")).isEqualTo(1);
        await().atMost(WAIT).untilAsserted(() -> assertThat(status().nodes())
                .isEqualTo(new JoulieStatus.Nodes(2, 1, 0, 0, 0, 1)));

        // the agent applied the new generation: the label follows without a tick
        cluster.agentReports("node-a", a.getMetadata().getGeneration(), ControlResult.APPLIED, 480);
        assertThat(ticks.watchdog()).contains("node-a");
        assertThat(cluster.label("node-a")).isEqualTo("performance");
        assertThat(cluster.profile("node-a").getStatus().agent()).isEqualTo(CapConfirmation.Confirmed);
        assertThat(cluster.profile("node-a").getStatus().applied().cpu().watts()).isEqualTo(480.0);
        assertThat(metric("joulie_performance_caps_unconfirmed", "reason=\"waiting\"")).isZero();
        assertThat(cluster.events("CapUnconfirmed")).isEmpty();
    }

    @Test
    void anAgentThatNeverConfirmsIsNamedOnceTheBoundHasPassed() {
        oneEcoOnePerformance();
        cluster.agentReports("node-a", cluster.profile("node-a").getMetadata().getGeneration(), ControlResult.APPLIED, 120);
        cluster.joulie(JoulieSpec.Policy.of("staticHpFrac", 1.0, "capConfirmationTimeout", "2m"));
        ticks.tick();
        assertThat(cluster.label("node-a")).isEqualTo("eco");

        ticks.advance(Duration.ofMinutes(2).minusMillis(1));
        ticks.watchdog();
        ticks.tick();
        assertThat(cluster.events("CapUnconfirmed")).as("not before the bound").isEmpty();

        ticks.advance(Duration.ofMillis(1));
        ticks.watchdog();
        assertThat(cluster.events("CapUnconfirmed")).singleElement().satisfies(e -> {
            assertThat(e.getType()).isEqualTo("Warning");
            assertThat(e.getInvolvedObject().getName()).isEqualTo("node-node-a");
            assertThat(e.getMessage()).startsWith("the agent of node node-a has not confirmed the performance cap for 2m");
        });
        assertThat(metric("joulie_performance_caps_unconfirmed", "reason=\"overdue\"")).isEqualTo(1);
        ticks.tick();
        await().atMost(WAIT).untilAsserted(() -> {
            Condition degraded = status().conditions().stream().filter(c -> c.getType().equals("Degraded")).findFirst()
                    .orElseThrow();
            assertThat(degraded.getStatus()).isEqualTo("True");
            assertThat(degraded.getReason()).isEqualTo("CapUnconfirmed");
            assertThat(degraded.getMessage()).contains("node-a (waiting for the agent to apply the performance cap");
        });
        ticks.tick();
        assertThat(cluster.events("CapUnconfirmed")).as("once per episode").hasSize(1);
        assertThat(cluster.label("node-a")).isEqualTo("eco");
    }

    JoulieStatus status() {
        Joulie j = client.resources(Joulie.class).withName(Joulie.ACTIVE_NAME).get();
        return j == null ? null : j.getStatus();
    }
}
