package io.joulie.sim;

import io.joulie.planner.PodClass;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SchedulerTest {

    private static List<SimNode> nodes(int... labels) {
        List<SimNode> list = new ArrayList<>();
        for (int i = 0; i < labels.length; i++) {
            SimNode n = new SimNode(i, "n" + i, Simulation.EPOCH);
            n.label = labels[i];
            list.add(n);
        }
        return list;
    }

    @Test
    void performanceJobsNeverLandOnEcoOrDrainingNodes() {
        List<SimNode> n = nodes(Scheduler.ECO, Scheduler.DRAINING, Scheduler.PERFORMANCE);
        Scheduler s = new Scheduler(n, 16, false);
        assertThat(s.pick(PodClass.PERFORMANCE, 4)).isEqualTo(2);
        occupy(s, n.get(2), 14);
        assertThat(s.pick(PodClass.PERFORMANCE, 4)).as("eco and draining nodes are free but not allowed").isEqualTo(-1);
        assertThat(s.maxFree(PodClass.PERFORMANCE)).isEqualTo(2);
        assertThat(s.pick(PodClass.PERFORMANCE, 2)).isEqualTo(2);
    }

    @Test
    void ecoJobsOnlyOnEcoNodesAndUnconstrainedAnywhere() {
        List<SimNode> n = nodes(Scheduler.PERFORMANCE, Scheduler.DRAINING, Scheduler.ECO);
        Scheduler s = new Scheduler(n, 16, false);
        assertThat(s.pick(PodClass.ECO, 1)).isEqualTo(2);
        assertThat(s.allows(PodClass.ECO, Scheduler.DRAINING)).isFalse();
        assertThat(s.allows(PodClass.UNCONSTRAINED, Scheduler.DRAINING)).isTrue();
        occupy(s, n.get(0), 8);
        assertThat(s.pick(PodClass.UNCONSTRAINED, 1)).as("least allocated, ties to the lowest index").isEqualTo(1);
    }

    @Test
    void labelChangesAreHonouredAtOnce() {
        List<SimNode> n = nodes(Scheduler.PERFORMANCE);
        Scheduler s = new Scheduler(n, 16, false);
        s.remove(n.get(0));
        n.get(0).label = Scheduler.labelOf("draining-performance");
        s.add(n.get(0));
        assertThat(s.pick(PodClass.PERFORMANCE, 1)).isEqualTo(-1);
        assertThat(s.pick(PodClass.UNCONSTRAINED, 16)).isZero();
        assertThat(s.pick(PodClass.UNCONSTRAINED, 17)).isEqualTo(-1);
    }

    @Test
    void withoutJoulieEveryNodeTakesEveryJob() {
        List<SimNode> n = nodes(Scheduler.PERFORMANCE, Scheduler.PERFORMANCE);
        Scheduler s = new Scheduler(n, 16, true);
        assertThat(s.pick(PodClass.ECO, 16)).isZero();
        assertThat(s.pick(PodClass.PERFORMANCE, 16)).isZero();
    }

    private static void occupy(Scheduler s, SimNode node, int cores) {
        s.remove(node);
        node.usedCores += cores;
        s.add(node);
    }
}
