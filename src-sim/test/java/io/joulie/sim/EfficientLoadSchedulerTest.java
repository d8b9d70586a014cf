package io.joulie.sim;

import io.joulie.planner.EcoPlacement;
import io.joulie.planner.EfficientLoadScore;
import io.joulie.planner.PodClass;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The twin's scheduler with {@code scheduler.score=efficient-load}, and the eco preference its jobs get. */
class EfficientLoadSchedulerTest {
    /** 16 cores. */
    private static final NodeType TYPE = SchedulerTest.TYPE;

    private static List<SimNode> nodes(int... labels) {
        return SchedulerTest.nodes(labels);
    }

    /** Places a CPU job as the simulation does, returning the node's index. */
    private static int place(Scheduler s, List<SimNode> n, int cores) {
        int i = s.pick(PodClass.UNCONSTRAINED, cores, false);
        occupy(s, n.get(i), cores);
        return i;
    }

    private static void occupy(Scheduler s, SimNode node, int cores) {
        s.remove(node);
        node.usedCores += cores;
        s.add(node);
    }

    @Test
    void theScoreByHandOnASixteenCoreNode() {
        assertThat(EfficientLoadScore.TARGET_PERCENT).as("the case below is computed for the shipped target").isEqualTo(60);
        // 2 cores more on 16: utilisation 12, 25, 37, 50, 62, 75 % (integer division); 20 + 80·u/60 up to 60 %,
        // 10 − 10·(u − 61)/39 past it
        assertThat(List.of(0, 2, 4, 6, 8, 10).stream().map(used -> Scheduler.efficientLoad(16, 16 - used, 2)).toList())
                .containsExactly(36L, 53L, 69L, 86L, 10L, 7L);
    }

    @Test
    void fillsANodeUpToTheTargetBeforeOpeningAnotherThenSpreads() {
        List<SimNode> n = nodes(Scheduler.PERFORMANCE, Scheduler.PERFORMANCE, Scheduler.PERFORMANCE);
        Scheduler s = new Scheduler(n, List.of(TYPE), false, PlacementScore.EFFICIENT_LOAD);
        List<Integer> where = new ArrayList<>();
        for (int job = 0; job < 16; job++) {
            where.add(place(s, n, 2));
        }
        // n0 takes 2, 4, 6, 8 cores (scores 36, 53, 69, 86 against an empty node's 36: ties to the lowest index); a fifth
        // job would take it to 62 % (score 10): n1 opens, then n2; past the target the emptiest wins (10 beats 7), ties
        // to the lowest index
        assertThat(where).containsExactly(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 0, 1, 2, 0);
        assertThat(n).extracting(x -> x.usedCores).containsExactly(12, 10, 10);

        List<SimNode> m = nodes(Scheduler.PERFORMANCE, Scheduler.PERFORMANCE, Scheduler.PERFORMANCE);
        Scheduler least = new Scheduler(m, List.of(TYPE), false);
        List<Integer> spread = new ArrayList<>();
        for (int job = 0; job < 6; job++) {
            spread.add(place(least, m, 2));
        }
        assertThat(spread).as("least-allocated, the default, spreads from the first job").containsExactly(0, 1, 2, 0, 1, 2);
    }

    @Test
    void aJobThatFitsNowhereUnderTheTargetTakesTheEmptiestNode() {
        List<SimNode> n = nodes(Scheduler.PERFORMANCE, Scheduler.PERFORMANCE);
        Scheduler s = new Scheduler(n, List.of(TYPE), false, PlacementScore.EFFICIENT_LOAD);
        occupy(s, n.get(0), 4);
        // 12 cores: 16/16 = 100 % on n0 (score 0), 12/16 = 75 % on the empty n1 (score 7)
        assertThat(s.pick(PodClass.UNCONSTRAINED, 12)).isEqualTo(1);
        assertThat(s.pick(PodClass.UNCONSTRAINED, 13)).as("only n1 fits").isEqualTo(1);
        assertThat(s.pick(PodClass.UNCONSTRAINED, 2)).as("n0 to 37 % beats n1 to 12 %").isZero();
    }

    @Test
    void aJobThatPrefersEcoTakesTheBestScoringEcoNodeFirst() {
        List<SimNode> n = nodes(Scheduler.PERFORMANCE, Scheduler.ECO, Scheduler.ECO);
        Scheduler s = new Scheduler(n, List.of(TYPE), false, PlacementScore.EFFICIENT_LOAD);
        occupy(s, n.get(0), 6);
        occupy(s, n.get(2), 4);
        assertThat(s.pick(PodClass.UNCONSTRAINED, 2, false)).as("the performance node to 50 %: 86").isZero();
        assertThat(s.pick(PodClass.UNCONSTRAINED, 2, true)).as("eco first: n2 to 37 % (69) beats the empty n1 (36)").isEqualTo(2);
        occupy(s, n.get(1), 16);
        occupy(s, n.get(2), 12);
        assertThat(s.pick(PodClass.UNCONSTRAINED, 2, true)).as("no eco node fits: the best anywhere").isZero();
        Scheduler without = new Scheduler(n, List.of(TYPE), true, PlacementScore.EFFICIENT_LOAD);
        assertThat(without.pick(PodClass.PERFORMANCE, 2, true)).as("A: the same score, no profile restriction").isZero();
    }

    @Test
    void gpuNodesAreScoredByCoresAmongThoseThatFit() {
        NodeType gpu = NodeCatalog.types().get("gpu-a100x8");
        List<SimNode> n = List.of(new SimNode(0, "g0", gpu, 0, Simulation.EPOCH), new SimNode(1, "g1", gpu, 0, Simulation.EPOCH));
        Scheduler s = new Scheduler(n, List.of(gpu), false, PlacementScore.EFFICIENT_LOAD);
        int quarter = n.get(1).cores() / 4;
        occupy(s, n.get(1), quarter);
        n.get(1).usedGpus = 2;
        assertThat(s.pickGpu(PodClass.UNCONSTRAINED, quarter, 2)).as("g1, fuller and still under the target").isEqualTo(1);
        assertThat(s.pickGpu(PodClass.UNCONSTRAINED, quarter, 7)).as("only g0 has 7 free boards").isZero();
        Scheduler least = new Scheduler(n, List.of(gpu), false);
        assertThat(least.pickGpu(PodClass.UNCONSTRAINED, quarter, 2)).as("least-allocated: the emptier g0").isZero();
    }

    @Test
    void theScoreIsAParameterLeastAllocatedByDefault() {
        assertThat(SimConfig.defaults().score()).isEqualTo(PlacementScore.LEAST_ALLOCATED);
        assertThat(SimConfig.of(Map.of("scheduler.score", "efficient-load")).score()).isEqualTo(PlacementScore.EFFICIENT_LOAD);
        assertThatThrownBy(() -> SimConfig.of(Map.of("scheduler.score", "most-allocated")))
                .hasMessageContaining("scheduler.score must be least-allocated or efficient-load");
    }

    @Test
    void aJobPrefersEcoAsEcoPlacementLeavesItsPod() {
        assertThat(JobSpec.of(0, 0, 2, 60, 0.5, null, true).prefersEco()).as("declared, no profile: the webhook adds it").isTrue();
        assertThat(JobSpec.of(0, 0, 2, 60, 0.5, null, false).prefersEco()).isFalse();
        assertThat(JobSpec.of(0, 0, 2, 60, 0.5, "performance", true).prefersEco())
                .as("the pod names a profile itself: the rule leaves it alone").isFalse();
        assertThat(JobSpec.of(0, 0, 2, 60, 0.5, "eco", true).prefersEco()).isFalse();
        for (String profile : new String[] {null, "performance", "eco"}) {
            for (boolean declares : new boolean[] {false, true}) {
                assertThat(JobSpec.prefersEco(profile, declares)).isEqualTo(
                        EcoPlacement.prefersEco(EcoPlacement.apply(JobSpec.pod(profile, declares)).getSpec()));
            }
        }
        JobSpec j = JobSpec.of(3, 0, 2, 60, 0.5, null, true);
        assertThat(j.withActivity(0.5).prefersEco()).as("kept by withActivity").isTrue();
        assertThat(new JobSpec(0, 0, 2, 60, 0.5, null, PodClass.UNCONSTRAINED, true, 0, 1).prefersEco())
                .as("the constructors without it derive it").isTrue();
    }
}
