package io.joulie.sim;

import io.joulie.planner.PodClass;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SchedulerTest {
    /** 16 cores. */
    static final NodeType TYPE = new NodeType("model", NodeModel.defaults());

    /** Nodes of {@link #TYPE} with these labels (Scheduler's constants), indexed in order. */
    static List<SimNode> nodes(int... labels) {
        List<SimNode> list = new ArrayList<>();
        for (int i = 0; i < labels.length; i++) {
            SimNode n = new SimNode(i, "n" + i, TYPE, 0, Simulation.EPOCH);
            n.label = labels[i];
            list.add(n);
        }
        return list;
    }

    @Test
    void performanceJobsNeverLandOnEcoOrDrainingNodes() {
        List<SimNode> n = nodes(Scheduler.ECO, Scheduler.DRAINING, Scheduler.PERFORMANCE);
        Scheduler s = new Scheduler(n, List.of(TYPE), false);
        assertThat(s.pick(PodClass.PERFORMANCE, 4)).isEqualTo(2);
        occupy(s, n.get(2), 14);
        assertThat(s.pick(PodClass.PERFORMANCE, 4)).as("eco and draining nodes are free but not allowed").isEqualTo(-1);
        assertThat(s.maxFree(PodClass.PERFORMANCE)).isEqualTo(2);
        assertThat(s.pick(PodClass.PERFORMANCE, 2)).isEqualTo(2);
    }

    @Test
    void ecoJobsOnlyOnEcoNodesAndUnconstrainedAnywhere() {
        List<SimNode> n = nodes(Scheduler.PERFORMANCE, Scheduler.DRAINING, Scheduler.ECO);
        Scheduler s = new Scheduler(n, List.of(TYPE), false);
        assertThat(s.pick(PodClass.ECO, 1)).isEqualTo(2);
        assertThat(s.allows(PodClass.ECO, Scheduler.DRAINING)).isFalse();
        assertThat(s.allows(PodClass.UNCONSTRAINED, Scheduler.DRAINING)).isTrue();
        occupy(s, n.get(0), 8);
        assertThat(s.pick(PodClass.UNCONSTRAINED, 1)).as("least allocated, ties to the lowest index").isEqualTo(1);
    }

    @Test
    void labelChangesAreHonouredAtOnce() {
        List<SimNode> n = nodes(Scheduler.PERFORMANCE);
        Scheduler s = new Scheduler(n, List.of(TYPE), false);
        s.remove(n.get(0));
        n.get(0).label = Scheduler.labelOf("draining-performance");
        s.add(n.get(0));
        assertThat(s.pick(PodClass.PERFORMANCE, 1)).isEqualTo(-1);
        assertThat(s.pick(PodClass.UNCONSTRAINED, 16)).isZero();
        assertThat(s.pick(PodClass.UNCONSTRAINED, 17)).isEqualTo(-1);
    }

    @Test
    void aJobThatDeclaresEcoTakesAnEcoNodeWhenOneFits() {
        List<SimNode> n = nodes(Scheduler.PERFORMANCE, Scheduler.ECO, Scheduler.ECO);
        Scheduler s = new Scheduler(n, List.of(TYPE), false);
        occupy(s, n.get(1), 4);
        assertThat(s.pick(PodClass.UNCONSTRAINED, 4, false)).as("least allocated: the empty performance node").isZero();
        assertThat(s.pick(PodClass.UNCONSTRAINED, 4, true)).as("preferred: the emptier eco node").isEqualTo(2);
        occupy(s, n.get(2), 14);
        assertThat(s.pick(PodClass.UNCONSTRAINED, 4, true)).isEqualTo(1);
        occupy(s, n.get(1), 10);
        assertThat(s.pick(PodClass.UNCONSTRAINED, 4, true)).as("no eco node fits: anywhere").isZero();
        Scheduler without = new Scheduler(n, List.of(TYPE), true);
        assertThat(without.pick(PodClass.UNCONSTRAINED, 1, true)).as("without Joulie there are no eco nodes to prefer").isZero();
    }

    @Test
    void withoutJoulieEveryNodeTakesEveryJob() {
        List<SimNode> n = nodes(Scheduler.PERFORMANCE, Scheduler.PERFORMANCE);
        Scheduler s = new Scheduler(n, List.of(TYPE), true);
        assertThat(s.pick(PodClass.ECO, 16)).isZero();
        assertThat(s.pick(PodClass.PERFORMANCE, 16)).isZero();
    }

    @Test
    void acrossNodeTypesTheLargestShareOfFreeCoresWins() {
        NodeModel small = NodeModel.defaults();
        NodeModel big = new NodeModel(32, small.curve(), small.beta(), small.frequencyShare(), small.fminMHz(), small.fmaxMHz(), small.floorWatts(),
                small.capMinWatts(), small.capMaxWatts(), small.capToleranceWatts(), small.throttleTauSeconds());
        NodeType s16 = new NodeType("small", small);
        NodeType b32 = new NodeType("big", big);
        List<SimNode> n = List.of(new SimNode(0, "s", s16, 0, Simulation.EPOCH), new SimNode(1, "b", b32, 1, Simulation.EPOCH));
        Scheduler s = new Scheduler(n, List.of(s16, b32), false);
        assertThat(s.maxFree(PodClass.UNCONSTRAINED)).isEqualTo(32);
        assertThat(s.pick(PodClass.UNCONSTRAINED, 17)).as("only the big node has 17 free cores").isEqualTo(1);
        occupy(s, n.get(1), 20);
        assertThat(s.pick(PodClass.UNCONSTRAINED, 4)).as("16/16 free beats 12/32").isZero();
        occupy(s, n.get(0), 4);
        assertThat(s.pick(PodClass.UNCONSTRAINED, 4)).as("12/16 and 12/32 free: 75 % beats 37.5 %").isZero();
        occupy(s, n.get(0), 6);
        assertThat(s.pick(PodClass.UNCONSTRAINED, 4)).as("6/16 and 12/32 free: a tie, to the lowest index").isZero();
        occupy(s, n.get(0), 1);
        assertThat(s.pick(PodClass.UNCONSTRAINED, 4)).as("12/32 free beats 5/16").isEqualTo(1);
    }

    @Test
    void gpuJobsOnlyOnGpuNodesWithFreeBoardsAndCpuJobsNeverThere() {
        NodeType gpu = NodeCatalog.types().get("gpu-a100x8");
        NodeType cpu = NodeCatalog.types().get("dell-r640");
        List<SimNode> n = List.of(new SimNode(0, "c", cpu, 0, Simulation.EPOCH), new SimNode(1, "g1", gpu, 1, Simulation.EPOCH),
                new SimNode(2, "g2", gpu, 1, Simulation.EPOCH));
        n.get(2).label = Scheduler.ECO;
        Scheduler s = new Scheduler(n, List.of(cpu, gpu), false);
        assertThat(s.pick(PodClass.UNCONSTRAINED, 1)).as("a CPU job on the node without GPUs").isZero();
        occupy(s, n.get(0), 56);
        assertThat(s.pick(PodClass.UNCONSTRAINED, 1)).as("the GPU nodes' free cores are not for CPU jobs").isEqualTo(-1);
        assertThat(s.maxFree(PodClass.UNCONSTRAINED)).isZero();

        assertThat(s.pickGpu(PodClass.UNCONSTRAINED, 8, 8)).as("least allocated, ties to the lowest index").isEqualTo(1);
        n.get(1).usedGpus = 6;
        occupy(s, n.get(1), 2);
        assertThat(s.pickGpu(PodClass.UNCONSTRAINED, 1, 4)).as("only g2 has 4 free boards").isEqualTo(2);
        assertThat(s.pickGpu(PodClass.PERFORMANCE, 1, 4)).as("g2 is eco: a performance job waits").isEqualTo(-1);
        assertThat(s.pickGpu(PodClass.PERFORMANCE, 1, 2)).isEqualTo(1);
        assertThat(s.pickGpu(PodClass.UNCONSTRAINED, 60, 1)).as("no GPU node has 60 free cores").isEqualTo(-1);
        int[] most = new int[9];
        s.maxFreeWithGpus(PodClass.PERFORMANCE, most);
        assertThat(most).as("g1 alone: 2 free boards, 54 free cores").containsExactly(0, 54, 54, 0, 0, 0, 0, 0, 0);
        s.maxFreeWithGpus(PodClass.UNCONSTRAINED, most);
        assertThat(most).containsExactly(0, 56, 56, 56, 56, 56, 56, 56, 56);
        Scheduler without = new Scheduler(n, List.of(cpu, gpu), true);
        assertThat(without.pickGpu(PodClass.PERFORMANCE, 1, 4)).as("without Joulie the labels do not restrict").isEqualTo(2);
        assertThat(without.pick(PodClass.UNCONSTRAINED, 1)).as("but the taint does").isEqualTo(-1);
    }

    private static void occupy(Scheduler s, SimNode node, int cores) {
        s.remove(node);
        node.usedCores += cores;
        s.add(node);
    }
}
