package io.joulie.sim.optimum;

import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.ManagedNode;
import io.joulie.planner.Plan;
import io.joulie.planner.PodClass;
import io.joulie.sim.Baseline;
import io.joulie.sim.Comparison;
import io.joulie.sim.JobSpec;
import io.joulie.sim.NodeType;
import io.joulie.sim.RunResult;
import io.joulie.sim.SimConfig;
import io.joulie.sim.Simulation;
import io.joulie.sim.Workload;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static io.joulie.sim.optimum.EnergyBoundTest.F_ECO;
import static io.joulie.sim.optimum.EnergyBoundTest.ONE_NODE;
import static io.joulie.sim.optimum.EnergyBoundTest.WORK;
import static io.joulie.sim.optimum.EnergyBoundTest.job;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class HindsightOptimizerTest {
    private static HindsightOptimizer.Result optimize(List<JobSpec> jobs) {
        RunResult a = Simulation.standalone(ONE_NODE, jobs, Baseline.A).run();
        return HindsightOptimizer.optimize(ONE_NODE, jobs, Map.of(),
                new HindsightOptimizer.Options(50, 1, 10 * a.meanCompletion(PodClass.UNCONSTRAINED)));
    }

    @Test
    void oneFullNodeJobSolvedByHand() {
        // The best schedule puts the node to eco at once. The guard lets it drain for the first tick (60 s at the
        // performance cap, 420 W, 960 core-seconds done), then commits eco: 260 W, 16·v core-seconds per second for the
        // remaining 56,640. Energy: 420·60 + 260·(the whole steps until the job is done).
        double v = 1 - (1 - F_ECO) * 0.5;
        double ecoSeconds = (WORK - 16 * 60) / (16 * v);
        double byHand = (420 * 60 + 260 * Math.ceil(ecoSeconds)) / 3.6e6;
        HindsightOptimizer.Result r = optimize(List.of(job(0.5, null)));
        assertThat(r.run().energyKWh()).isCloseTo(byHand, within(1e-9)).isCloseTo(0.32182, within(1e-5));
        assertThat(r.run().makespanSeconds()).isCloseTo(60 + ecoSeconds, within(1e-6));
        assertThat(r.schedule().count(0, 0)).as("eco from the first tick").isZero();
        assertThat(r.run().violationSeconds()).isZero();
        // 0.5 % above the bound: the one tick of draining
        assertThat(r.run().energyKWh() / EnergyBound.of(ONE_NODE, List.of(job(0.5, null))).kWh()).isCloseTo(1.0053, within(1e-4));
    }

    @Test
    void aPerformanceOnlyJobIsNeverCappedSoTheOptimumIsAllPerformance() {
        HindsightOptimizer.Result r = optimize(List.of(job(0.5, "performance")));
        assertThat(r.run().violationSeconds()).isZero();
        assertThat(r.run().energyKWh()).isCloseTo(0.42, within(1e-9));
    }

    @Test
    void theOptimumIsNeverWorseThanThePolicyItStartsFrom() {
        SimConfig config = SimConfig.of(Map.of("workload.jobs", "80", "optimizer.evaluations", "60"));
        Comparison c = Comparison.run("short", config, 2);
        RunResult h = c.get(Baseline.H);
        assertThat(h.violationSeconds()).isZero();
        assertThat(h.finished()).isTrue();
        for (Baseline b : Baseline.policies()) {
            assertThat(h.energyKWh()).isLessThanOrEqualTo(c.get(b).energyKWh());
        }
        assertThat(c.optimum().evaluations()).isLessThanOrEqualTo(60);
        // never worse than any acceptable seed, the clairvoyant schedule among them
        assertThat(c.optimum().seeds()).containsKeys("demand_sized_v1", "all performance", "clairvoyant fill 0.5");
        c.optimum().seeds().values().stream().filter(e -> !e.isNaN())
                .forEach(e -> assertThat(h.energyKWh()).isLessThanOrEqualTo(e));
        assertThat(h.energyKWh()).isLessThanOrEqualTo(c.get(Baseline.U).energyKWh());
        // replaying the schedule found gives the same run
        assertThat(HindsightOptimizer.evaluate(config, io.joulie.sim.Workload.of(config.workload()), c.optimum().schedule()).energyKWh())
                .isEqualTo(h.energyKWh());
        assertThat(Arrays.stream(c.optimum().schedule().totals()).allMatch(hp -> hp >= 0 && hp <= config.nodes())).isTrue();
    }

    @Test
    void theSearchIsNeverWorseThanItsSeedsAndRefinesDownToSingleTicks() {
        // 2 nodes, 12 jobs: about an hour and a half of 60 s ticks, so blocks of 32 ticks down to 1; 40 runs shared among them
        SimConfig config = SimConfig.of(Map.of("cluster.nodes", "2", "workload.jobs", "12", "workload.meanInterarrivalSeconds", "60"));
        List<JobSpec> jobs = Workload.of(config.workload());
        RunResult a = Simulation.standalone(config, jobs, Baseline.A).run();
        List<HindsightOptimizer.Seed> seeds = List.of(
                new HindsightOptimizer.Seed("one eco node", Schedule.total(new int[] {1}), null),
                new HindsightOptimizer.Seed("eco then performance", Schedule.total(new int[] {0, 0, 0, 0, 2}), null));
        HindsightOptimizer.Result r = HindsightOptimizer.optimize(config, jobs, seeds,
                new HindsightOptimizer.Options(40, 2, 1.05 * a.meanCompletion(PodClass.PERFORMANCE)));
        assertThat(r.finestBlock()).as("single ticks reached").isEqualTo(1);
        assertThat(r.evaluations()).isLessThanOrEqualTo(40);
        assertThat(r.seeds()).containsKeys("one eco node", "eco then performance", "all performance", "constant 0");
        assertThat(r.seeds().get("all performance")).as("all performance is always acceptable").isCloseTo(a.energyKWh(), within(1e-9));
        r.seeds().values().stream().filter(e -> !e.isNaN()).forEach(e -> assertThat(r.run().energyKWh()).isLessThanOrEqualTo(e));
        assertThat(r.run().violationSeconds()).isZero();
        assertThat(r.run().finished()).isTrue();
        // the same search twice gives the same schedule: deterministic
        HindsightOptimizer.Result again = HindsightOptimizer.optimize(config, jobs, seeds,
                new HindsightOptimizer.Options(40, 1, 1.05 * a.meanCompletion(PodClass.PERFORMANCE)));
        assertThat(again.schedule()).isEqualTo(r.schedule());
        assertThat(again.run().energyKWh()).isEqualTo(r.run().energyKWh());
    }

    @Test
    void aPerTypeScheduleChoosesWhichTypeStaysPerformance() {
        // 4 nodes, two types interleaved; one type kept performance, the other eco
        SimConfig config = SimConfig.of(Map.of("cluster.nodes", "4", "cluster.types", "dell-r640:0.5,dell-r940:0.5"));
        List<String> types = List.of("dell-r640", "dell-r940");
        List<ManagedNode> nodes = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) {
            nodes.add(new ManagedNode("node-" + i, Map.of(NodeType.LABEL, types.get(config.typeOfEachNode().get(i))), false,
                    PowerState.ActivePerformance, Simulation.EPOCH, List.of()));
        }
        ScheduledCount policy = new ScheduledCount(Schedule.perType(new int[][] {{0}, {2}}), types, 60);
        Plan plan = policy.plan(new ClusterContext(Simulation.EPOCH, nodes, 0));
        assertThat(plan.performanceNodes()).isEqualTo(2);
        for (ManagedNode n : nodes) {
            assertThat(plan.targets().get(n.name())).as(n.name())
                    .isEqualTo(n.labels().get(NodeType.LABEL).equals("dell-r940") ? Profile.PERFORMANCE : Profile.ECO);
        }
        // a total count leaves the choice to the operator's eco selection: by name
        Plan total = new ScheduledCount(Schedule.total(new int[] {2}), types, 60).plan(new ClusterContext(Simulation.EPOCH, nodes, 0));
        assertThat(total.targets()).containsEntry("node-0", Profile.ECO).containsEntry("node-1", Profile.ECO)
                .containsEntry("node-2", Profile.PERFORMANCE).containsEntry("node-3", Profile.PERFORMANCE);
    }

    @Test
    void aPerTypeScheduleNeedsARowPerType() {
        SimConfig config = SimConfig.of(Map.of("cluster.nodes", "4", "cluster.types", "dell-r640:0.5,dell-r940:0.5"));
        assertThatThrownBy(() -> HindsightOptimizer.evaluate(config, Workload.of(config.workload()), Schedule.perType(new int[][] {{1}})))
                .hasMessageContaining("one row per node type");
    }
}
