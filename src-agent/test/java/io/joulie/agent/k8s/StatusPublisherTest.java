package io.joulie.agent.k8s;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.Family;
import io.joulie.agent.control.Observed;
import io.joulie.agent.control.cpu.CpuBackend;
import io.joulie.agent.control.gpu.GpuBackend;
import io.joulie.agent.metrics.AgentMetrics;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec;
import io.joulie.api.v1alpha1.TelemetryProfileStatus;
import io.joulie.api.v1alpha1.TelemetryProfileStatus.ControlResult;
import io.joulie.api.v1alpha1.TelemetryProfileStatus.Device;
import io.joulie.api.v1alpha1.TelemetryProfileStatus.Result;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class StatusPublisherTest {
    record Write(String node, Optional<TelemetryProfile> own, Family family, ControlOutcome outcome) {
    }

    final List<Write> writes = new ArrayList<>();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    boolean failing;
    final StatusPublisher publisher = new StatusPublisher((node, own, outcomes) -> {
        if (failing) {
            throw new IllegalStateException("409 three times");
        }
        outcomes.forEach((family, outcome) -> writes.add(new Write(node, own, family, outcome)));
    }, new AgentMetrics(registry));

    static ControlOutcome applied(double watts) {
        return new ControlOutcome(CpuBackend.POWERCAP, Result.APPLIED, "applied node cap 240 W as long_term limit on 2 packages",
                Map.of(Observed.CAP_WATTS, 240.0, Observed.CAP_WATTS_PER_PACKAGE, 120.0, Observed.PACKAGE_POWER_WATTS, watts));
    }

    /** The node's own profile, holding {@code cpu} as its status (null: no status yet). */
    static TelemetryProfile own(ControlResult cpu) {
        TelemetryProfile tp = new TelemetryProfile();
        tp.setMetadata(new ObjectMetaBuilder().withName("node-a").build());
        tp.setSpec(new TelemetryProfileSpec(new TelemetryProfileSpec.Target(TelemetryProfileSpec.Scope.NODE, "a"), null, null));
        if (cpu != null) {
            tp.setStatus(new TelemetryProfileStatus(new TelemetryProfileStatus.ControlStatus(cpu, null)));
        }
        return tp;
    }

    @Test
    void aStatusThatDiffersOnlyInPackagePowerIsNotWrittenAgain() {
        TelemetryProfile own = own(null);
        publisher.publish("a", List.of(), applied(80));
        assertThat(writes).singleElement().satisfies(w -> assertThat(w.own()).isEmpty());
        publisher.publish("a", List.of(own), applied(95));
        publisher.publish("a", List.of(own), applied(101.5));
        assertThat(writes).hasSize(1);

        ControlOutcome blocked = ControlOutcome.blocked(CpuBackend.POWERCAP, "spec.cpu.packagePowerCapWatts is missing",
                Map.of(Observed.CAP_WATTS_PER_PACKAGE, 120.0));
        publisher.publish("a", List.of(own), blocked);
        assertThat(writes).hasSize(2);
        assertThat(writes.getLast().own()).contains(own);
        assertThat(writes.getLast().outcome()).isEqualTo(blocked);
    }

    /** While the profile the status goes into does not exist, every outcome is written (the writer creates it). */
    @Test
    void withoutItsOwnProfileTheStatusIsWrittenEveryTime() {
        publisher.publish("a", List.of(), applied(80));
        publisher.publish("a", List.of(), applied(80));
        assertThat(writes).hasSize(2);
    }

    /** After a restart the agent finds its last status in the profile and does not write the same again. */
    @Test
    void theStatusAlreadyInTheProfileCountsAsWritten() {
        ControlResult there = new ControlResult("powercap", Result.APPLIED, "applied node cap 240 W as long_term limit on 2 packages",
                Map.of("capWatts", 240.0, "capWattsPerPackage", 120.0, "packagePowerWatts", 70.0), "2026-11-21T11:00:00Z");
        publisher.publish("a", List.of(own(there)), applied(80));
        assertThat(writes).isEmpty();
    }

    @Test
    void aFailedWriteIsCountedAndTriedAgainWithTheNextOutcome() {
        TelemetryProfile own = own(null);
        failing = true;
        publisher.publish("a", List.of(own), applied(80));
        assertThat(registry.get("joulie.agent.errors").tags("node", "a", "kind", "status").counter().count()).isEqualTo(1);
        failing = false;
        publisher.publish("a", List.of(own), applied(80));
        assertThat(writes).hasSize(1);
    }

    @Test
    void aForgottenNodeStartsAgainFromItsProfile() {
        TelemetryProfile own = own(null);
        publisher.publish("a", List.of(own), applied(80));
        publisher.forget("a");
        publisher.publish("a", List.of(own), applied(80));
        assertThat(writes).hasSize(2);
    }

    @Test
    void theEventSinkRecordsOnlyAfterTheStatusWasWrittenAndOnlyWhatChanged() {
        List<String> events = new ArrayList<>();
        StatusPublisher.Sink status = (node, own, outcomes) -> {
            if (failing) {
                throw new IllegalStateException("409 three times");
            }
            outcomes.forEach((family, outcome) -> writes.add(new Write(node, own, family, outcome)));
        };
        StatusPublisher both = new StatusPublisher(status,
                (node, changed) -> changed.forEach((family, outcome) -> events.add(node + " " + family + " " + outcome.result())),
                new AgentMetrics(registry));
        failing = true;
        both.publish("a", List.of(), applied(80));
        assertThat(events).as("no Event for a status that was not written").isEmpty();
        failing = false;
        both.publish("a", List.of(), applied(80));
        both.publish("a", List.of(own(null)), applied(95));
        both.publish("a", List.of(own(null)), ControlOutcome.blocked(CpuBackend.POWERCAP, "locked", Map.of()));
        assertThat(events).containsExactly("a CPU APPLIED", "a CPU BLOCKED");
        both.publish("a", List.of(own(null)), Map.of(Family.CPU, ControlOutcome.blocked(CpuBackend.POWERCAP, "locked", Map.of()),
                Family.GPU, gpus(420, 300, 1000)));
        assertThat(writes).as("both families in the one status write").hasSize(4);
        assertThat(events).as("an Event for the family that changed only").containsExactly("a CPU APPLIED", "a CPU BLOCKED", "a GPU APPLIED");
        assertThat(NodeEvents.Reason.of(ControlOutcome.blocked(CpuBackend.POWERCAP, "locked", Map.of())))
                .contains(NodeEvents.Reason.CapBlocked);
        assertThat(NodeEvents.Reason.of(ControlOutcome.none(CpuBackend.POWERCAP, "no control"))).isEmpty();
        assertThat(NodeEvents.message(applied(80))).isEqualTo("powercap: applied node cap 240 W as long_term limit on 2 packages");
    }

    static ControlOutcome gpus(double limitWatts, double powerWatts, double energyJoules) {
        return new ControlOutcome(GpuBackend.NVML, Result.APPLIED, "applied 60 % of each board's maximum as power limit on 1 board",
                Map.of(Observed.CAP_WATTS_PER_GPU, limitWatts, Observed.GPUS, 1.0, Observed.GPU_POWER_WATTS, powerWatts),
                List.of(new Device(0, "NVIDIA H100 80GB HBM3", limitWatts, powerWatts, energyJoules)));
    }

    @Test
    void aGpuStatusThatDiffersOnlyInPowerAndEnergyIsNotWrittenAgainButANewLimitIs() {
        TelemetryProfile own = own(null);
        publisher.publish("a", List.of(own), Map.of(Family.GPU, gpus(420, 300, 1000)));
        publisher.publish("a", List.of(own), Map.of(Family.GPU, gpus(420, 350, 1500.5)));
        assertThat(writes).singleElement().satisfies(w -> assertThat(w.family()).isEqualTo(Family.GPU));
        publisher.publish("a", List.of(own), Map.of(Family.GPU, gpus(700, 350, 1600)));
        assertThat(writes).hasSize(2);
    }

    @Test
    void theFamiliesAreComparedApartAndTheGpuStatusInTheProfileCountsAsWritten() {
        ControlOutcome gpu = gpus(420, 300, 1000);
        TelemetryProfile own = own(null);
        own.setStatus(new TelemetryProfileStatus(new TelemetryProfileStatus.ControlStatus(null, new ControlResult("nvml", Result.APPLIED,
                gpu.message(), gpu.observedByKey(), List.of(new Device(0, "NVIDIA H100 80GB HBM3", 420.0, 10.0, 1.0)),
                "2026-11-21T11:00:00Z"))));
        publisher.publish("a", List.of(own), Map.of(Family.GPU, gpu));
        assertThat(writes).isEmpty();
        publisher.publish("a", List.of(own), applied(80));
        assertThat(writes).singleElement().satisfies(w -> assertThat(w.family()).isEqualTo(Family.CPU));
    }

    /** One reconcile's outcomes go in one write: a second write from the cached profile could undo the first. */
    @Test
    void bothFamiliesOfOneReconcileAreWrittenTogetherWhenEitherChanged() {
        TelemetryProfile own = own(null);
        publisher.publish("a", List.of(own), Map.of(Family.CPU, applied(80), Family.GPU, gpus(420, 300, 1000)));
        assertThat(writes).extracting(Write::family).containsExactlyInAnyOrder(Family.CPU, Family.GPU);
        publisher.publish("a", List.of(own), Map.of(Family.CPU, applied(81), Family.GPU, gpus(700, 300, 1000)));
        assertThat(writes).as("the GPU limit changed: both again").extracting(Write::family)
                .containsExactlyInAnyOrder(Family.CPU, Family.GPU, Family.CPU, Family.GPU);
        publisher.publish("a", List.of(own), Map.of(Family.CPU, applied(82), Family.GPU, gpus(700, 310, 1100)));
        assertThat(writes).hasSize(4);
    }
}
