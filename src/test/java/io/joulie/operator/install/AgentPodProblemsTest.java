package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.joulie.api.v1alpha1.ConditionReason;
import io.joulie.api.v1alpha1.JoulieStatusAggregator.Problem;
import io.joulie.operator.metrics.AgentPodMetrics;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class AgentPodProblemsTest {
    static final String POD_SECURITY = "Error creating: pods \"joulie-agent-x7k2p\" is forbidden: violates PodSecurity "
            + "\"baseline:latest\": hostPath volumes (volumes \"sys\", \"sys-devices-virtual\", "
            + "\"sys-cpufreq\", \"dev-cpu\", \"proc-cpuinfo\", \"boot-id\", \"state\")";

    static DaemonSet daemonSet(int desired, int created) {
        return new DaemonSetBuilder().withNewMetadata().withName("joulie-agent").withNamespace("joulie-system").withUid("ds-1")
                .endMetadata().withNewStatus().withDesiredNumberScheduled(desired).withCurrentNumberScheduled(created)
                .withNumberReady(0).endStatus().build();
    }

    static Event event(String kind, String name, String uid, String reason, String message, String at) {
        return new EventBuilder().withNewMetadata().withName(name + "." + at).withNamespace("joulie-system").endMetadata()
                .withNewInvolvedObject().withKind(kind).withName(name).withUid(uid).endInvolvedObject()
                .withType("Warning").withReason(reason).withMessage(message).withLastTimestamp(at).build();
    }

    static Pod pod(String name, String node) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace("joulie-system").endMetadata()
                .withNewSpec().withNodeName(node).endSpec().withNewStatus().withPhase("Pending").endStatus().build();
    }

    @Test
    void missingPodsAreRefusedWithTheControllersLatestReason() {
        List<Problem> found = AgentPodProblems.of(daemonSet(6, 0), List.of(), List.of(
                event("DaemonSet", "joulie-agent", "ds-1", "FailedCreate", "Error creating: an older reason", "2026-11-24T10:00:00Z"),
                event("DaemonSet", "joulie-agent", "ds-1", "FailedCreate", POD_SECURITY, "2026-11-24T10:05:00Z"),
                event("DaemonSet", "joulie-agent", "ds-0", "FailedCreate", "a DaemonSet of the same name that is gone", "2026-11-24T10:09:00Z"),
                event("DaemonSet", "other", null, "FailedCreate", "another DaemonSet", "2026-11-24T10:10:00Z"))).problems();
        assertThat(found).containsExactly(new Problem(ConditionReason.AgentPodsRefused,
                "6 of 6 agent pods cannot be created: " + POD_SECURITY));
        assertThat(AgentPodProblems.of(daemonSet(6, 0), List.of(), List.of()).counts())
                .isEqualTo(new AgentPodMetrics.Counts(6, 0, 6, 0, 0));
    }

    @Test
    void aFailureThatNoLongerKeepsPodsMissingIsNoProblem() {
        assertThat(AgentPodProblems.of(daemonSet(6, 6), List.of(), List.of(
                event("DaemonSet", "joulie-agent", "ds-1", "FailedCreate", POD_SECURITY, "2026-11-24T10:05:00Z"))).problems()).isEmpty();
        assertThat(AgentPodProblems.of(daemonSet(6, 0), List.of(), List.of()).problems()).as("no reason known yet").isEmpty();
    }

    @Test
    void unschedulableAndStuckPodsAreNamedWithTheirReasons() {
        Pod pending = new PodBuilder(pod("joulie-agent-a", null)).editStatus().addNewCondition().withType("PodScheduled")
                .withStatus("False").withReason("Unschedulable").withMessage("0/7 nodes are available: 1 Insufficient cpu.")
                .endCondition().endStatus().build();
        Pod pulling = new PodBuilder(pod("joulie-agent-b", "kwok-1")).editStatus().addNewContainerStatus().withName("agent")
                .withNewState().withNewWaiting().withReason("ImagePullBackOff").withMessage("Back-off pulling image").endWaiting()
                .endState().endContainerStatus().endStatus().build();
        Pod starting = new PodBuilder(pod("joulie-agent-c", "kwok-2")).editStatus().addNewContainerStatus().withName("agent")
                .withNewState().withNewWaiting().withReason("ContainerCreating").endWaiting().endState().endContainerStatus()
                .endStatus().build();
        AgentPodProblems.Found found = AgentPodProblems.of(daemonSet(3, 3), List.of(starting, pulling, pending), List.of());
        assertThat(found.counts()).isEqualTo(new AgentPodMetrics.Counts(3, 0, 0, 1, 1));
        assertThat(found.problems()).containsExactly(
                new Problem(ConditionReason.AgentPodsUnschedulable,
                        "1 agent pod cannot be scheduled: joulie-agent-a: Unschedulable (0/7 nodes are available: 1 Insufficient cpu.)"),
                new Problem(ConditionReason.AgentPodsFailing,
                        "1 agent pod not running: joulie-agent-b on kwok-1: ImagePullBackOff (Back-off pulling image)"));
    }

    @Test
    void manyPodsAreCountedAndTheFirstFewNamed() {
        List<Pod> pods = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            pods.add(new PodBuilder(pod("joulie-agent-" + i, null)).editStatus().addNewCondition().withType("PodScheduled")
                    .withStatus("False").withReason("Unschedulable").endCondition().endStatus().build());
        }
        assertThat(AgentPodProblems.of(daemonSet(5, 5), pods, List.of()).problems()).singleElement()
                .satisfies(p -> assertThat(p.message()).startsWith("5 agent pods cannot be scheduled: joulie-agent-0: Unschedulable;")
                        .endsWith("; +2 more"));
    }

    @Test
    void theAgentEventsAreThoseAboutTheDaemonSetAndItsPods() {
        assertThat(AgentTemplate.isAboutAgents(event("DaemonSet", "joulie-agent", null, "FailedCreate", "m", "2026-11-24T10:00:00Z"))).isTrue();
        assertThat(AgentTemplate.isAboutAgents(event("Pod", "joulie-agent-x7k2p", null, "Failed", "m", "2026-11-24T10:00:00Z"))).isTrue();
        assertThat(AgentTemplate.isAboutAgents(event("Pod", "joulie-operator-5d8", null, "Failed", "m", "2026-11-24T10:00:00Z"))).isFalse();
        assertThat(AgentTemplate.isAboutAgents(event("Deployment", "joulie-agent", null, "x", "m", "2026-11-24T10:00:00Z"))).isFalse();
    }
}
