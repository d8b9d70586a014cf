package io.joulie.operator.it;

import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodeHardware;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileSpec;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.testkit.ServerSideApplyDispatcher;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.joulie.operator.it.Cluster.metric;
import static org.assertj.core.api.Assertions.assertThat;

/** The real operator on the mock API server, the test driving its tick: static_partition 0.5, escalation hold. */
@QuarkusTest
@WithKubernetesTestServer(setup = ServerSideApplyDispatcher.Setup.class)
class PlannerLoopTest extends TickedOperatorTest {
    @Test
    void partitionsManagedNodesAndWritesProfilesLabelsStatusAndEvents() {
        for (String n : List.of("Worker_01", "worker-b", "worker-c", "worker-d")) {
            cluster.managedNode(n);
        }
        cluster.node("outsider", Map.of());

        ticks.tick();
        for (String n : List.of("Worker_01", "worker-b", "worker-c", "worker-d")) {
            assertThat(cluster.state(n)).as(n).isNotNull();
        }
        // the downgrades drain, then commit eco once the settle time has passed without a performance-only pod
        assertThat(cluster.state("Worker_01")).isEqualTo(PowerState.DrainingPerformance);
        ticks.advance(Ticks.SETTLE.minusMillis(1));
        ticks.tick();
        assertThat(cluster.state("Worker_01")).as("1 ms before the settle time").isEqualTo(PowerState.DrainingPerformance);
        ticks.advance(Duration.ofMillis(1));
        ticks.tick();
        assertThat(cluster.state("Worker_01")).isEqualTo(PowerState.ActiveEco);
        assertThat(cluster.state("worker-b")).isEqualTo(PowerState.ActiveEco);
        // 4 nodes × 0.5 = 2 eco; all were ActivePerformance without pods, so the first two by name go eco.
        NodePowerProfile first = cluster.profile("Worker_01");
        assertThat(first.getMetadata().getName()).isEqualTo("node-worker-01");
        assertThat(first.getSpec().nodeName()).isEqualTo("Worker_01");
        assertThat(first.getSpec().profile()).isEqualTo(Profile.ECO);
        assertThat(first.getSpec().cpu()).isEqualTo(NodePowerProfileSpec.CpuPower.percent(60));
        assertThat(first.getSpec().policy().name()).isEqualTo("static_partition");
        assertThat(first.getStatus().state()).isEqualTo(PowerState.ActiveEco);
        assertThat(first.getStatus().reason()).isEqualTo("selected for eco by static_partition");
        assertThat(first.getStatus().since()).as("when it committed, to the millisecond").isEqualTo(Ticks.START.plus(Ticks.SETTLE).toString());
        assertThat(first.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
            assertThat(o.getKind()).isEqualTo("Node");
            assertThat(o.getName()).isEqualTo("Worker_01");
            assertThat(o.getUid()).isEqualTo(client.nodes().withName("Worker_01").get().getMetadata().getUid());
        });
        assertThat(cluster.profile("worker-b").getSpec().profile()).isEqualTo(Profile.ECO);
        NodePowerProfile perf = cluster.profile("worker-d");
        assertThat(perf.getSpec().profile()).isEqualTo(Profile.PERFORMANCE);
        assertThat(perf.getSpec().cpu()).isEqualTo(NodePowerProfileSpec.CpuPower.percent(100));
        assertThat(perf.getStatus().state()).isEqualTo(PowerState.ActivePerformance);
        assertThat(cluster.profile("outsider")).isNull();

        assertThat(cluster.label("Worker_01")).isEqualTo("eco");
        assertThat(cluster.label("worker-c")).isEqualTo("performance");
        assertThat(cluster.label("outsider")).isNull();
        assertThat(cluster.events("PowerStateChanged"))
                .extracting(e -> e.getInvolvedObject().getName())
                .contains("node-worker-01", "node-worker-b");
        assertThat(metric("joulie_managed_nodes")).isEqualTo(4);
        assertThat(metric("joulie_nodes", "state=\"eco\"")).isEqualTo(2);
        assertThat(metric("joulie_nodes", "state=\"performance\"")).isEqualTo(2);
        assertThat(metric("joulie_planned_performance_nodes")).isEqualTo(2);
        // every downgrade drains for a tick first
        assertThat(metric("joulie_transitions_total", "from=\"ActivePerformance\"", "to=\"DrainingPerformance\"",
                "outcome=\"completed\"")).isGreaterThanOrEqualTo(2);
        assertThat(metric("joulie_transitions_total", "from=\"DrainingPerformance\"", "to=\"ActiveEco\"",
                "outcome=\"completed\"")).isGreaterThanOrEqualTo(2);
        assertThat(metric("joulie_tick_duration_seconds_count")).isPositive();
    }

    /** Two packages of 250 W that cannot be capped and four boards of 700 W that can, as a GPU node's agent reports them. */
    static NodeHardwareStatus gpuServer(NodeHardwareStatus.Control cpu, int boards, NodeHardwareStatus.Control gpu) {
        List<NodeHardwareStatus.GpuBoard> devices = new java.util.ArrayList<>();
        for (int i = 0; i < boards; i++) {
            devices.add(new NodeHardwareStatus.GpuBoard(i, "H100", 200.0, 700.0, 700.0, 700.0));
        }
        return new NodeHardwareStatus(new NodeHardwareStatus.Cpu("intel", "Xeon", 2, 64, 128,
                List.of(new NodeHardwareStatus.CpuPackage("intel-rapl:0", null, 250.0, null),
                        new NodeHardwareStatus.CpuPackage("intel-rapl:1", null, 250.0, null)), null, cpu),
                new NodeHardwareStatus.Gpu(boards > 0 ? "nvidia" : null, boards > 0 ? "H100" : null, boards,
                        boards > 0 ? devices : null, gpu, boards > 0 ? null : "NVML reports no GPU board"), "2026-11-24T00:00:00Z");
    }

    @Test
    void nodesWithGpusGetTheGpuCapAndANodeThatCanCapNothingIsLeftOut() {
        cluster.managedNode("a-cpu");
        cluster.managedNode("b-gpu");
        cluster.hardware("b-gpu", gpuServer(NodeHardwareStatus.Control.NONE, 4, NodeHardwareStatus.Control.NVML));
        cluster.managedGpuNode("c-advertised", 8);
        cluster.managedNode("d-nothing");
        cluster.hardware("d-nothing", gpuServer(NodeHardwareStatus.Control.NONE, 0, NodeHardwareStatus.Control.NONE));

        ticks.tick();
        ticks.advance(Ticks.SETTLE);
        ticks.tick();

        assertThat(cluster.profile("d-nothing")).as("no way to cap its CPU nor GPUs: left out").isNull();
        assertThat(metric("joulie_excluded_nodes")).isEqualTo(1);
        assertThat(cluster.profile("a-cpu").getSpec().gpu()).as("no GPU: no GPU cap").isNull();
        for (String gpuNode : List.of("b-gpu", "c-advertised")) {
            NodePowerProfile npp = cluster.profile(gpuNode);
            assertThat(npp).as("a GPU node whose CPU cannot be capped is managed through its GPUs: " + gpuNode).isNotNull();
            assertThat(npp.getSpec().gpu()).isEqualTo(npp.getSpec().profile() == Profile.ECO
                    ? NodePowerProfileSpec.GpuPower.percent(60) : NodePowerProfileSpec.GpuPower.percent(100));
        }
        assertThat(List.of("a-cpu", "b-gpu", "c-advertised")).extracting(n -> cluster.profile(n).getSpec().profile())
                .contains(Profile.ECO, Profile.PERFORMANCE);
    }

    /**
     * A NodeHardware counts for a node only when its name, its joulie.io/node label and spec.nodeName all name that node
     * (what the admission policy lets an agent write): one made by another node's agent under this node's name or label
     * is ignored, not taken as this node's inventory.
     */
    @Test
    void aNodeHardwareWhoseNameLabelAndNodeDisagreeIsIgnored() {
        cluster.managedNode("e-victim");
        cluster.managedNode("f-squatter");
        NodeHardwareStatus gpus = gpuServer(NodeHardwareStatus.Control.NONE, 4, NodeHardwareStatus.Control.NVML);
        // under the victim's name and label, but for the squatter's node; under the squatter's name, labelled and
        // specified for the victim. A third node's NodeHardware, written after them, tells when the view has read them.
        cluster.hardwareObject("node-e-victim", Map.of(JoulieApi.NODE_LABEL, "e-victim"), "f-squatter", gpus);
        cluster.hardwareObject("node-f-squatter", Map.of(JoulieApi.NODE_LABEL, "e-victim"), "e-victim", gpus);
        cluster.hardware("g-witness", gpus);
        assertThat(cluster.viewedHardware("e-victim")).isNull();
        assertThat(cluster.viewedHardware("f-squatter")).isNull();

        // the victim's name and node, without the label
        client.resources(NodeHardware.class).withName("node-e-victim").delete();
        cluster.hardwareObject("node-e-victim", Map.of(), "e-victim", gpus);
        cluster.hardware("h-witness", gpus);
        assertThat(cluster.viewedHardware("e-victim")).as("unlabelled").isNull();

        client.resources(NodeHardware.class).withName("node-e-victim").delete();
        cluster.hardware("e-victim", gpus);
        assertThat(cluster.viewedHardware("e-victim")).as("its own, name, label and node agreeing").isEqualTo(gpus);
        assertThat(cluster.viewedHardware("f-squatter")).isNull();
    }

    @Test
    void drainBlocksWhilePerformancePodsRunThenCompletesWhenTheyFinish() {
        // pods first: a tick between the two must not see busy nodes as idle
        cluster.pod("work", "pa", "node-a", "performance");
        cluster.pod("work", "pb", "node-b", "performance");
        cluster.managedNode("node-a");
        cluster.managedNode("node-b");
        // Both carry performance-only pods: one has to drain (ties by name: node-a).
        ticks.tick();
        assertThat(cluster.state("node-a")).isEqualTo(PowerState.DrainingPerformance);
        NodePowerProfile a = cluster.profile("node-a");
        assertThat(a.getSpec().profile()).isEqualTo(Profile.PERFORMANCE);
        assertThat(a.getSpec().cpu()).isEqualTo(NodePowerProfileSpec.CpuPower.percent(100));
        assertThat(a.getStatus().reason()).isEqualTo("draining 1 performance-only pod");
        assertThat(cluster.label("node-a")).isEqualTo("draining-performance");
        double blocked = metric("joulie_transitions_total", "from=\"DrainingPerformance\"", "to=\"ActiveEco\"",
                "outcome=\"blocked\"");
        ticks.tick(2);
        assertThat(metric("joulie_transitions_total", "from=\"DrainingPerformance\"", "to=\"ActiveEco\"",
                "outcome=\"blocked\"")).isGreaterThanOrEqualTo(2).isEqualTo(blocked + 2);
        assertThat(cluster.state("node-a")).isEqualTo(PowerState.DrainingPerformance);
        assertThat(cluster.profile("node-b").getStatus().state()).isEqualTo(PowerState.ActivePerformance);

        cluster.finish("work", "pa");
        ticks.tick();
        assertThat(cluster.state("node-a")).as("the settle time counts from the last pod leaving").isEqualTo(PowerState.DrainingPerformance);
        ticks.advance(Ticks.SETTLE);
        ticks.tick();

        assertThat(cluster.state("node-a")).isEqualTo(PowerState.ActiveEco);
        NodePowerProfile done = cluster.profile("node-a");
        assertThat(done.getSpec().profile()).isEqualTo(Profile.ECO);
        assertThat(done.getSpec().cpu()).isEqualTo(NodePowerProfileSpec.CpuPower.percent(60));
        assertThat(cluster.label("node-a")).isEqualTo("eco");
        assertThat(cluster.events("PowerStateChanged")).extracting(e -> e.getMessage())
                .anySatisfy(m -> assertThat(m).startsWith("ActivePerformance -> DrainingPerformance"))
                .anySatisfy(m -> assertThat(m).startsWith("DrainingPerformance -> ActiveEco"));
    }

    @Test
    void nodePlannedPerformanceAgainWhileDrainingGoesBackAtOnce() {
        // pods first: a tick between the two must not see busy nodes as idle
        cluster.pod("work", "pa", "node-a", "performance");
        cluster.pod("work", "pb", "node-b", "performance");
        cluster.managedNode("node-a");
        cluster.managedNode("node-b");
        ticks.tick();
        assertThat(cluster.state("node-a")).isEqualTo(PowerState.DrainingPerformance);

        client.nodes().withName("node-b").delete(); // one node left: round(1 × 0.5) = 1 performance
        ticks.tick();

        assertThat(cluster.state("node-a")).isEqualTo(PowerState.ActivePerformance);
        assertThat(cluster.label("node-a")).isEqualTo("performance");
        assertThat(cluster.profile("node-b")).isNull();
    }

    @Test
    void cordonedNodesAreFrozenAndNotCounted() {
        for (String n : List.of("node-a", "node-b", "node-c", "node-d")) {
            cluster.managedNode(n);
        }
        // 4 × 0.5: a and b eco, c and d performance
        ticks.tick();
        ticks.advance(Ticks.SETTLE);
        ticks.tick();
        assertThat(cluster.state("node-b")).isEqualTo(PowerState.ActiveEco);
        assertThat(cluster.state("node-c")).isEqualTo(PowerState.ActivePerformance);
        assertThat(cluster.label("node-c")).isEqualTo("performance");
        String frozen = cluster.profile("node-c").getMetadata().getResourceVersion();

        client.nodes().withName("node-c").edit(n -> {
            n.getSpec().setUnschedulable(true);
            return n;
        });

        // c no longer counts: round(3 × 0.5) = 2 performance among a, b and d. One eco node stays eco
        // (a, first by name), so b goes back to performance; counting c would have left b eco.
        ticks.tick();
        assertThat(cluster.state("node-b")).isEqualTo(PowerState.ActivePerformance);
        assertThat(cluster.state("node-a")).isEqualTo(PowerState.ActiveEco);
        assertThat(cluster.profile("node-c").getMetadata().getResourceVersion()).as("cordoned: not written").isEqualTo(frozen);
        assertThat(cluster.label("node-c")).isEqualTo("performance");
        assertThat(metric("joulie_planned_performance_nodes")).isEqualTo(2);
    }

    @Test
    void nodesLeavingManagementAreReleased() {
        cluster.managedNode("node-a");
        cluster.managedNode("node-b");
        cluster.node("hand-labelled", Map.of("joulie.io/power-profile", "performance"));
        ticks.tick();
        assertThat(cluster.label("node-a")).isNotNull();
        assertThat(cluster.label("node-b")).isNotNull();

        client.nodes().withName("node-a").edit(n -> {
            n.getMetadata().getLabels().put("joulie.io/reserved", "true");
            return n;
        });
        client.nodes().withName("node-b").edit(n -> {
            n.getMetadata().getLabels().remove(Cluster.MANAGED);
            return n;
        });
        ticks.tick();

        assertThat(cluster.profile("node-a")).isNull();
        assertThat(cluster.label("node-a")).isNull();
        assertThat(cluster.profile("node-b")).isNull();
        assertThat(cluster.label("node-b")).isNull();
        assertThat(cluster.label("hand-labelled")).as("a label Joulie did not write stays").isEqualTo("performance");
    }

    @Test
    void oneFailingNodeDoesNotStopTheOthers() {
        // "a-b" and "a.b" both map to the object name node-a-b: the second cannot be written.
        cluster.managedNode("a-b");
        cluster.managedNode("a.b");
        cluster.managedNode("c");
        double partial = metric("joulie_ticks_total", "result=\"partial\"");
        double errors = metric("joulie_errors_total", "kind=\"node\"");

        ticks.tick();

        assertThat(cluster.state("c")).isNotNull();
        assertThat(cluster.label("c")).isNotNull();
        assertThat(metric("joulie_errors_total", "kind=\"node\"")).isPositive().isEqualTo(errors + 1);
        assertThat(metric("joulie_ticks_total", "result=\"partial\"")).isGreaterThan(partial);
        assertThat(cluster.profile("a-b").getSpec().nodeName()).isEqualTo("a-b");
        assertThat(cluster.label("a.b")).as("the failed node is not labelled").isNull();
    }

    @Test
    void aNodeWhoseNameCollidesWithAManagedNodeDoesNotTakeItsProfile() {
        // "a.c" is managed first; "a-c" then maps to the same object name node-a-c, and sorts before it
        cluster.managedNode("a.c");
        ticks.tick();
        assertThat(cluster.label("a.c")).isNotNull();
        double errors = metric("joulie_errors_total", "kind=\"node\"");
        cluster.managedNode("a-c");

        ticks.tick();
        assertThat(metric("joulie_errors_total", "kind=\"node\"")).isGreaterThan(errors);
        assertThat(cluster.profile("a.c").getSpec().nodeName()).as("the profile stays with the node that had it").isEqualTo("a.c");
        assertThat(cluster.label("a.c")).isNotNull();
        assertThat(cluster.label("a-c")).as("the colliding node is not labelled").isNull();
    }
}
