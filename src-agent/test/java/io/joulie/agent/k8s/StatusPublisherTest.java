package io.joulie.agent.k8s;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.Family;
import io.joulie.agent.control.Observed;
import io.joulie.agent.control.cpu.CpuBackend;
import io.joulie.agent.control.gpu.GpuBackend;
import io.joulie.agent.metrics.AgentMetrics;
import io.joulie.api.v1alpha1.ControlResult;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileSpec;
import io.joulie.api.v1alpha1.NodePowerProfileStatus;
import io.joulie.api.v1alpha1.NodePowerProfileStatus.Applied;
import io.joulie.api.v1alpha1.NodePowerProfileStatus.Device;
import io.joulie.api.v1alpha1.Profile;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The agent answers in {@code status.applied} of the node's NodePowerProfile, and only when the answer says something new. */
class StatusPublisherTest {
    record Write(NodePowerProfile npp, Applied applied) {
    }

    final List<Write> writes = new ArrayList<>();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    boolean failing;
    final StatusPublisher publisher = new StatusPublisher((npp, applied) -> {
        if (failing) {
            throw new IllegalStateException("422 from the API server");
        }
        writes.add(new Write(npp, applied));
    }, new AgentMetrics(registry));

    static ControlOutcome applied(double watts) {
        return new ControlOutcome(CpuBackend.POWERCAP, ControlResult.APPLIED, "applied node cap 240 W as long_term limit on 2 packages",
                Map.of(Observed.CAP_WATTS, 240.0, Observed.CAP_WATTS_PER_PACKAGE, 120.0, Observed.PACKAGE_POWER_WATTS, watts),
                List.of(new Device(0, null, 120.0), new Device(1, null, 120.0)));
    }

    /** The node's NodePowerProfile at {@code generation}, holding {@code applied} as the agent's answer (null: none yet). */
    static Optional<NodePowerProfile> npp(long generation, Applied applied) {
        return npp("uid-1", generation, applied);
    }

    /** The same, for the object with this UID (a profile deleted and made again has another). */
    static Optional<NodePowerProfile> npp(String uid, long generation, Applied applied) {
        NodePowerProfile npp = new NodePowerProfile();
        npp.setMetadata(new ObjectMetaBuilder().withName("node-a").withUid(uid).withGeneration(generation).build());
        npp.setSpec(new NodePowerProfileSpec("a", Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240), null));
        if (applied != null) {
            npp.setStatus(NodePowerProfileStatus.ofApplied(applied));
        }
        return Optional.of(npp);
    }

    @Test
    void theAnswerNamesTheGenerationTheResultTheLimitsAndTheMessage() {
        publisher.publish("a", npp(3, null), applied(80));

        Applied answer = writes.getLast().applied();
        assertThat(answer.generation()).isEqualTo(3L);
        assertThat(answer.cpu()).isEqualTo(new NodePowerProfileStatus.Cpu(ControlResult.APPLIED, "powercap", 240.0, null,
                List.of(new Device(0, null, 120.0), new Device(1, null, 120.0)), "applied node cap 240 W as long_term limit on 2 packages"));
        assertThat(answer.gpu()).isNull();
    }

    @Test
    void anAnswerThatDiffersOnlyInPackagePowerIsNotWrittenAgainButANewGenerationIs() {
        publisher.publish("a", npp(3, null), applied(80));
        publisher.publish("a", npp(3, null), applied(95));
        assertThat(writes).hasSize(1);

        publisher.publish("a", npp(4, null), applied(95));
        assertThat(writes).hasSize(2);
        assertThat(writes.getLast().applied().generation()).isEqualTo(4L);

        ControlOutcome blocked = ControlOutcome.blocked(CpuBackend.POWERCAP, "spec.cpu.packagePowerCapWatts is missing", Map.of());
        publisher.publish("a", npp(4, null), blocked);
        assertThat(writes).hasSize(3);
        assertThat(writes.getLast().applied().cpu().result()).isEqualTo(ControlResult.BLOCKED);
    }

    /** After a restart the agent finds its last answer in the profile and does not write the same again. */
    @Test
    void theAnswerAlreadyInTheProfileCountsAsWritten() {
        Applied there = new Applied(3L, StatusPublisher.cpu(applied(70)), null, "2026-11-21T11:00:00Z");
        publisher.publish("a", npp(3, there), applied(80));
        assertThat(writes).isEmpty();
    }

    @Test
    void withoutAProfileNothingIsWrittenButTheChangeIsTold() {
        List<String> told = new ArrayList<>();
        StatusPublisher withEvents = new StatusPublisher((npp, applied) -> writes.add(new Write(npp, applied)),
                (node, changed) -> changed.forEach((family, out) -> told.add(node + " " + family + " " + out.result())),
                new AgentMetrics(registry));
        withEvents.publish("a", Optional.empty(), applied(80));
        assertThat(writes).isEmpty();
        assertThat(told).containsExactly("a CPU APPLIED");
    }

    @Test
    void aFailedWriteIsCountedAndTriedAgainWithTheNextOutcome() {
        failing = true;
        publisher.publish("a", npp(3, null), applied(80));
        assertThat(registry.get("joulie.agent.errors").tags("node", "a", "kind", "status").counter().count()).isEqualTo(1);
        failing = false;
        publisher.publish("a", npp(3, null), applied(80));
        assertThat(writes).hasSize(1);
    }

    /**
     * A profile deleted and made again under the same name between two reconciles (the agent never saw it gone) starts
     * at the same generation with no answer: it is answered, not taken for the old one (AgentUnderFaultsIT found a node
     * left unconfirmed for good).
     */
    @Test
    void aProfileMadeAgainUnderTheSameNameIsAnsweredAgain() {
        publisher.publish("a", npp("uid-1", 1, null), applied(80));
        publisher.publish("a", npp("uid-2", 1, null), applied(80));
        assertThat(writes).hasSize(2);
        assertThat(writes.getLast().npp().getMetadata().getUid()).isEqualTo("uid-2");
        assertThat(writes.getLast().applied().generation()).isEqualTo(1L);

        publisher.publish("a", npp("uid-2", 1, writes.getLast().applied()), applied(80));
        assertThat(writes).as("the new object's answer, once written, is not written again").hasSize(2);
    }

    @Test
    void aForgottenNodeStartsAgainFromItsProfile() {
        publisher.publish("a", npp(3, null), applied(80));
        publisher.forget("a");
        publisher.publish("a", npp(3, null), applied(80));
        assertThat(writes).hasSize(2);
    }

    @Test
    void theEventSinkRecordsOnlyAfterTheAnswerWasWrittenAndOnlyWhatChanged() {
        List<String> events = new ArrayList<>();
        StatusPublisher both = new StatusPublisher((npp, applied) -> {
            if (failing) {
                throw new IllegalStateException("422");
            }
            writes.add(new Write(npp, applied));
        }, (node, changed) -> changed.forEach((family, outcome) -> events.add(node + " " + family + " " + outcome.result())),
                new AgentMetrics(registry));
        failing = true;
        both.publish("a", npp(1, null), applied(80));
        assertThat(events).as("no Event for an answer that was not written").isEmpty();
        failing = false;
        both.publish("a", npp(1, null), applied(80));
        both.publish("a", npp(1, null), applied(95));
        both.publish("a", npp(1, null), ControlOutcome.blocked(CpuBackend.POWERCAP, "locked", Map.of()));
        assertThat(events).containsExactly("a CPU APPLIED", "a CPU BLOCKED");
        both.publish("a", npp(1, null), Map.of(Family.CPU, ControlOutcome.blocked(CpuBackend.POWERCAP, "locked", Map.of()),
                Family.GPU, gpus(420)));
        assertThat(writes).as("both families in the one write").hasSize(3);
        assertThat(writes.getLast().applied().cpu().result()).isEqualTo(ControlResult.BLOCKED);
        assertThat(writes.getLast().applied().gpu().result()).isEqualTo(ControlResult.APPLIED);
        assertThat(events).as("an Event for the family that changed only").containsExactly("a CPU APPLIED", "a CPU BLOCKED", "a GPU APPLIED");
        assertThat(NodeEvents.Reason.of(ControlOutcome.blocked(CpuBackend.POWERCAP, "locked", Map.of())))
                .contains(NodeEvents.Reason.CapBlocked);
        assertThat(NodeEvents.Reason.of(ControlOutcome.none(CpuBackend.POWERCAP, "no control"))).isEmpty();
        assertThat(NodeEvents.Reason.of(applied(80).restored())).contains(NodeEvents.Reason.CapRestored);
        assertThat(NodeEvents.message(applied(80))).isEqualTo("powercap: applied node cap 240 W as long_term limit on 2 packages");
    }

    static ControlOutcome gpus(double limitWatts) {
        return new ControlOutcome(GpuBackend.NVML, ControlResult.APPLIED, "applied 60 % of each board's maximum as power limit on 1 board",
                Map.of(Observed.CAP_WATTS_PER_GPU, limitWatts, Observed.GPUS, 1.0), List.of(new Device(0, "NVIDIA H100 80GB HBM3", limitWatts)));
    }

    @Test
    void aFamilyWithoutAnOutcomeKeepsItsLastAnswer() {
        publisher.publish("a", npp(2, null), Map.of(Family.CPU, applied(80), Family.GPU, gpus(420)));
        publisher.publish("a", npp(3, null), Map.of(Family.CPU, applied(80)));
        assertThat(writes.getLast().applied().generation()).isEqualTo(3L);
        assertThat(writes.getLast().applied().gpu().boards()).extracting(Device::watts).containsExactly(420.0);

        publisher.publish("a", npp(3, null), Map.of(Family.GPU, gpus(700)));
        assertThat(writes.getLast().applied().gpu().boards()).extracting(Device::watts).containsExactly(700.0);
        assertThat(writes.getLast().applied().cpu().watts()).isEqualTo(240.0);
    }

    @Test
    void aRestoreIsAnsweredAsRestoredNotApplied() {
        publisher.publish("a", npp(5, null), applied(80));
        publisher.publish("a", npp(5, null), applied(80).restored().withMessage("agent stopped; restored 2 packages"));
        assertThat(writes.getLast().applied().cpu().result()).isEqualTo(ControlResult.RESTORED);
        assertThat(writes.getLast().applied().cpu().message()).isEqualTo("agent stopped; restored 2 packages");
    }
}
