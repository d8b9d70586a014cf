package io.joulie.api.v1alpha1;

import io.fabric8.kubernetes.api.model.Condition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class JoulieStatusAggregatorTest {
    static final Instant T1 = Instant.parse("2026-11-21T12:00:00.700Z");
    static final Instant T2 = Instant.parse("2026-11-21T13:00:00Z");
    static final JoulieSpec.Policy POLICY = JoulieSpec.Policy.of("type", "static_partition", "staticHpFrac", 0.5,
            "ecoCapWatts", 120.0, "downgradeTimeout", "30m");

    static Joulie joulie(String name, JoulieStatus status) {
        Joulie j = new Joulie();
        j.getMetadata().setName(name);
        j.getMetadata().setGeneration(3L);
        j.setStatus(status);
        return j;
    }

    static String describe(Condition c) {
        return c.getType() + "=" + c.getStatus() + " " + c.getReason() + ": " + c.getMessage();
    }

    static List<String> conditions(JoulieStatus s) {
        return s.conditions().stream().map(JoulieStatusAggregatorTest::describe).toList();
    }

    @ParameterizedTest(name = "desired {0}, ready {1}, updated {2}")
    @CsvSource(delimiter = '|', nullValues = "-", value = {
            // desired | ready | updated | Available | Progressing | Degraded
            "- | - | - | False Deploying | True Deploying | False Deploying",
            "0 | 0 | 0 | False NoNodesSelected | False NoNodesSelected | True NoNodesSelected",
            "3 | 1 | 3 | False AgentsNotReady | True RollingOut | False RollingOut",
            "3 | 3 | 2 | False AgentsNotReady | True RollingOut | False RollingOut",
            "3 | 3 | 3 | True AllAgentsReady | False RolloutComplete | False AllAgentsReady",
    })
    void theRolloutSetsAvailableProgressingAndTheHealthyReason(Integer desired, Integer ready, Integer updated,
                                                               String available, String progressing, String degraded) {
        var agg = JoulieStatusAggregator.of(joulie("joulie", null)).effectivePolicy(POLICY);
        if (desired != null) {
            agg.agents(desired, ready, updated, "node affinity joulie.io/managed In [true]");
        }
        JoulieStatus s = agg.build(T1);

        assertThat(s.conditions()).extracting(c -> c.getStatus() + " " + c.getReason())
                .containsExactly(available, progressing, degraded);
        assertThat(s.agents()).isEqualTo(desired == null ? null : new JoulieStatus.Agents(desired, ready, updated));
        assertThat(s.effectivePolicy()).isEqualTo(POLICY);
        assertThat(s.observedGeneration()).isEqualTo(3L);
        assertThat(s.conditions()).allSatisfy(c -> {
            assertThat(c.getObservedGeneration()).isEqualTo(3L);
            assertThat(c.getLastTransitionTime()).isEqualTo("2026-11-21T12:00:00Z");
        });
        if (desired != null && desired == 0) {
            assertThat(s.conditions().get(2).getMessage())
                    .isEqualTo("the agent DaemonSet selects no node (node affinity joulie.io/managed In [true])");
        }
    }

    @Test
    void theMostImportantProblemNamesDegradedAndEveryMessageIsKept() {
        JoulieStatus s = JoulieStatusAggregator.of(joulie("joulie", null))
                .planner(new JoulieStatus.Nodes(4, 2, 0, 2, 0), List.of(), List.of(
                        new JoulieStatusAggregator.Problem(ConditionReason.TelemetryUnavailable, "telemetry is out"),
                        new JoulieStatusAggregator.Problem(ConditionReason.PowerBudgetUnmet, "budget unmet")), null)
                .problem(ConditionReason.InvalidPolicy, "spec.policy is bad")
                .agents(3, 3, 3, "every node")
                .build(T1);

        assertThat(conditions(s).get(2)).isEqualTo("Degraded=True InvalidPolicy: spec.policy is bad; telemetry is out; budget unmet");
        assertThat(s.nodes()).isEqualTo(new JoulieStatus.Nodes(4, 2, 0, 2, 0));
        assertThat(s.excludedNodes()).as("none left out: no list").isNull();
        assertThat(conditions(s).get(0)).isEqualTo("Available=True AllAgentsReady: 3 of 3 agents ready, 3 updated");
    }

    @Test
    void planningSettingsInTheEnvironmentAreTheLeastProblemAndNeverHideAnother() {
        JoulieStatus alone = JoulieStatusAggregator.of(joulie("joulie", null))
                .problem(ConditionReason.PlanningSettingInEnvironment, "STATIC_HP_FRAC -> spec.policy.staticHpFrac")
                .agents(3, 3, 3, "every node")
                .build(T1);
        JoulieStatus withOthers = JoulieStatusAggregator.of(joulie("joulie", null))
                .problem(ConditionReason.PlanningSettingInEnvironment, "STATIC_HP_FRAC -> spec.policy.staticHpFrac")
                .planner(new JoulieStatus.Nodes(4, 2, 0, 2, 0), List.of(), List.of(
                        new JoulieStatusAggregator.Problem(ConditionReason.CapUnconfirmed, "w1 waits")), null)
                .agents(3, 3, 3, "every node")
                .build(T1);

        assertThat(conditions(alone).get(2))
                .isEqualTo("Degraded=True PlanningSettingInEnvironment: STATIC_HP_FRAC -> spec.policy.staticHpFrac");
        assertThat(conditions(alone).get(0)).as("planning goes on").isEqualTo("Available=True AllAgentsReady: 3 of 3 agents ready, 3 updated");
        assertThat(conditions(withOthers).get(2))
                .isEqualTo("Degraded=True CapUnconfirmed: w1 waits; STATIC_HP_FRAC -> spec.policy.staticHpFrac");
    }

    @Test
    void aReplicaThatDoesNotPlanKeepsThePlannersCountsAndProblem() {
        JoulieStatus leaders = JoulieStatusAggregator.of(joulie("joulie", null))
                .planner(new JoulieStatus.Nodes(2, 1, 0, 1, 1), List.of(new JoulieStatus.ExcludedNode("x", "NoPowerControl", "m")),
                        List.of(new JoulieStatusAggregator.Problem(ConditionReason.PowerBudgetUnmet, "budget unmet")),
                        new JoulieStatus.BudgetHold(1, 900.0))
                .build(T1);

        JoulieStatus next = JoulieStatusAggregator.of(joulie("joulie", leaders)).problem(ConditionReason.InvalidPolicy, "bad")
                .build(T2);

        assertThat(next.nodes()).isEqualTo(leaders.nodes());
        assertThat(next.excludedNodes()).isEqualTo(leaders.excludedNodes());
        assertThat(next.budgetHold()).as("the held budget survives a status written by another replica")
                .isEqualTo(new JoulieStatus.BudgetHold(1, 900.0));
        assertThat(conditions(next).get(2)).isEqualTo("Degraded=True InvalidPolicy: bad; budget unmet");
        // Degraded by a problem that is not the planner's: re-computed, nothing kept
        JoulieStatus after = JoulieStatusAggregator.of(joulie("joulie", next)).build(T2);
        assertThat(conditions(after).get(2)).isEqualTo("Degraded=False Deploying: no problem found");
    }

    @Test
    void aConditionKeepsItsTransitionTimeWhileItsStatusStays() {
        JoulieStatus first = JoulieStatusAggregator.of(joulie("joulie", null)).agents(3, 1, 3, "every node").build(T1);
        JoulieStatus second = JoulieStatusAggregator.of(joulie("joulie", first)).agents(3, 2, 3, "every node").build(T2);
        JoulieStatus third = JoulieStatusAggregator.of(joulie("joulie", second)).agents(3, 3, 3, "every node").build(T2);

        assertThat(second.conditions()).allSatisfy(c -> assertThat(c.getLastTransitionTime()).isEqualTo("2026-11-21T12:00:00Z"));
        assertThat(third.conditions()).extracting(Condition::getLastTransitionTime)
                .containsExactly("2026-11-21T13:00:00Z", "2026-11-21T13:00:00Z", "2026-11-21T12:00:00Z");
    }

    @Test
    void furtherConditionsFollowTheThree() {
        Condition monitoring = JoulieStatusAggregator.condition(JoulieCondition.MonitoringReady, true, ConditionReason.Ready,
                "created: ServiceMonitors");
        JoulieStatus s = JoulieStatusAggregator.of(joulie("joulie", null)).condition(monitoring).condition(null).build(T1);

        assertThat(conditions(s)).hasSize(4).last().isEqualTo("MonitoringReady=True Ready: created: ServiceMonitors");
        assertThat(monitoring.getLastTransitionTime()).as("the caller's condition is copied, not changed").isNull();
    }

    @Test
    void anotherResourceIsNotActedOn() {
        JoulieStatus s = JoulieStatusAggregator.of(joulie("second", null)).notActive(T1);

        String m = "only the Joulie resource named 'joulie' is acted on";
        assertThat(conditions(s)).containsExactly("Available=False NotActive: " + m, "Progressing=False NotActive: " + m,
                "Degraded=True NotActive: " + m);
        assertThat(s.agents()).isNull();
        assertThat(s.effectivePolicy()).isNull();
    }

    @Test
    void aReconcileErrorKeepsWhatTheStatusShowed() {
        JoulieStatus good = JoulieStatusAggregator.of(joulie("joulie", null)).effectivePolicy(POLICY).agents(3, 3, 3, "every node")
                .planner(new JoulieStatus.Nodes(3, 3, 0, 0, 0), List.of(), List.of(), null).build(T1);

        JoulieStatus s = JoulieStatusAggregator.of(joulie("joulie", good)).reconcileError("etcd is down", T2);

        assertThat(conditions(s)).containsExactly("Available=False ReconcileError: etcd is down",
                "Progressing=False ReconcileError: etcd is down", "Degraded=True ReconcileError: etcd is down");
        assertThat(s.agents()).isEqualTo(good.agents());
        assertThat(s.effectivePolicy()).isEqualTo(POLICY);
        assertThat(s.nodes()).isEqualTo(good.nodes());
        assertThat(s.conditions().get(0).getLastTransitionTime()).isEqualTo("2026-11-21T13:00:00Z");
    }

    @org.junit.jupiter.api.Test
    void whyAgentPodsDoNotRunNamesAvailableAndDegraded() {
        JoulieStatus s = JoulieStatusAggregator.of(joulie("joulie", null)).agents(6, 0, 0, "every node")
                .agentProblems(List.of(
                        new JoulieStatusAggregator.Problem(ConditionReason.AgentPodsUnschedulable, "1 agent pod cannot be scheduled: p"),
                        new JoulieStatusAggregator.Problem(ConditionReason.AgentPodsRefused, "6 of 6 agent pods cannot be created: PodSecurity")))
                .problem(ConditionReason.InvalidPolicy, "bad")
                .build(T1);
        assertThat(conditions(s)).containsExactly(
                "Available=False AgentPodsRefused: 0 of 6 agents ready, 0 updated: 6 of 6 agent pods cannot be created: PodSecurity",
                "Progressing=True RollingOut: 0 of 6 agents ready, 0 updated",
                "Degraded=True AgentPodsRefused: 6 of 6 agent pods cannot be created: PodSecurity; "
                        + "1 agent pod cannot be scheduled: p; bad");
        JoulieStatus ready = JoulieStatusAggregator.of(joulie("joulie", null)).agents(6, 6, 6, "every node")
                .agentProblems(List.of(new JoulieStatusAggregator.Problem(ConditionReason.AgentPodsFailing, "stale")))
                .build(T1);
        assertThat(conditions(ready)).as("all agents ready: nothing left to explain").contains(
                "Available=True AllAgentsReady: 6 of 6 agents ready, 6 updated", "Degraded=False AllAgentsReady: no problem found");
    }
}
