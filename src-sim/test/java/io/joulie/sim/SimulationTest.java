package io.joulie.sim;

import io.joulie.api.v1alpha1.PowerState;
import io.joulie.planner.Outcome;
import io.joulie.planner.Planner;
import io.joulie.planner.PodClass;
import io.joulie.planner.Transition;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SimulationTest {
    /**
     * The published experiment's shape, shortened: 5 nodes, 120 jobs; 8 performance pods per performance node,
     * so that the queue of performance jobs moves queue_aware_v1 up and down within the run.
     */
    private static final Map<String, String> SHORT = Map.of("workload.jobs", "120", "planner.queuePerfPerHpNode", "8");

    @Test
    void seededComparisonHasNoViolationsAndSavesPowerOnTheSameWork() {
        Comparison c = Comparison.run("short", SimConfig.of(SHORT), 2);
        assertThat(c.results().keySet()).containsExactly(Baseline.A, Baseline.B, Baseline.C, Baseline.D, Baseline.H, Baseline.U);
        for (Baseline b : c.results().keySet()) {
            RunResult r = c.get(b);
            assertThat(r.jobsCompleted()).as(b + " completes every job").isEqualTo(120);
            assertThat(r.violationSeconds()).as(b + " violations").isZero();
            assertThat(r.completionTimes().get(PodClass.PERFORMANCE)).isNotEmpty();
        }
        assertThat(c.get(Baseline.A).transitions()).as("A runs no planner").isZero();
        for (Baseline b : List.of(Baseline.A, Baseline.B, Baseline.C, Baseline.D, Baseline.U)) {
            assertThat(c.get(Baseline.H).energyKWh()).as("the optimum is no worse than " + b).isLessThanOrEqualTo(c.get(b).energyKWh());
        }
        assertThat(c.constructive().acceptable()).as("U meets the service level here").isTrue();
        assertThat(c.bound().kWh()).as("the bound is below the optimum").isLessThan(c.get(Baseline.H).energyKWh());
        assertThat(c.performanceSlowdown(Baseline.H)).as("the optimum keeps the service level").isLessThanOrEqualTo(1.05);
        assertThat(c.get(Baseline.A).series()).allSatisfy(s -> assertThat(s.ecoNodes()).isZero());
        for (Baseline b : List.of(Baseline.B, Baseline.C, Baseline.H)) {
            assertThat(c.get(b).series()).as(b + " puts a node into eco").anySatisfy(s -> assertThat(s.ecoNodes()).isPositive());
            assertThat(c.windowEnergyDeltaPercent(b)).as(b + " draws less energy over the common window").isNegative();
        }
        // static_partition: round(5 × 0.75) = 4 performance nodes once the drains are done
        assertThat(c.get(Baseline.B).series().get(c.get(Baseline.B).series().size() / 2).ecoNodes()).isEqualTo(1);
        Comparison again = Comparison.run("short", SimConfig.of(SHORT), 1);
        assertThat(again.get(Baseline.C).energyKWh()).as("deterministic").isEqualTo(c.get(Baseline.C).energyKWh());
    }

    @Test
    void drainsCompleteThroughTheOperatorsGuardAsPodsFinish() {
        SimConfig config = SimConfig.of(SHORT);
        List<Transition> moves = new ArrayList<>();
        List<String> summaries = new ArrayList<>();
        // queue_aware_v1 raises the performance count while performance jobs queue and lowers it later,
        // when the node it sends to eco is busy
        new Simulation(config, Workload.of(config.workload()), Baseline.C, new InProcessPlanner(
                new Planner(config.planner().withPolicy(Baseline.C.policy())), config.tickSeconds(), (t, plan, moved) -> {
            moves.addAll(moved);
            summaries.add(plan.plan().policyName());
        })).run();
        assertThat(summaries).containsOnly("queue_aware_v1");
        // a drain of a busy node (every downgrade drains; those of idle nodes say so and commit at the next tick)
        Transition drain = moves.stream().filter(m -> m.to() == PowerState.DrainingPerformance
                && !m.reason().contains("settling:")).findFirst().orElseThrow();
        assertThat(drain.from()).isEqualTo(PowerState.ActivePerformance);
        assertThat(drain.reason()).startsWith("draining ").contains("performance-only pod");
        assertThat(moves).anySatisfy(m -> {
            assertThat(m.node()).isEqualTo(drain.node());
            assertThat(m.from()).isEqualTo(PowerState.DrainingPerformance);
            assertThat(m.to()).isEqualTo(PowerState.ActiveEco);
            assertThat(m.outcome()).isEqualTo(Outcome.COMPLETED);
            assertThat(m.since()).isAfter(drain.since());
        });
    }

    /** queue_aware_v1 on the short workload, escalating at once when a drain is blocked. */
    private static RunResult escalating(String escalation) {
        Map<String, String> params = new HashMap<>(SHORT);
        params.put("planner.escalation", escalation);
        params.put("planner.downgradeTimeoutSeconds", "0");
        SimConfig config = SimConfig.of(params);
        return Simulation.standalone(config, Workload.of(config.workload()), Baseline.C).run();
    }

    @Test
    void violationsAreCountedWhenEcoIsForcedOnRunningPerformanceJobs() {
        RunResult r = escalating("force");
        assertThat(r.violationSeconds()).as("the metric sees a performance job under the eco cap").isPositive();
        assertThat(r.jobsCompleted()).isEqualTo(120);
    }

    @Test
    void evictionRestartsJobsElsewhereWithoutViolations() {
        RunResult r = escalating("evict");
        assertThat(r.evictions()).isPositive();
        assertThat(r.violationSeconds()).isZero();
        assertThat(r.jobsCompleted()).isEqualTo(120);
    }

    @Test
    void capsAndLabelsFollowTheStates() {
        SimConfig config = SimConfig.of(SHORT);
        Simulation sim = Simulation.standalone(config, Workload.of(config.workload()), Baseline.B);
        RunResult r = sim.run();
        RunResult.Sample last = r.series().getLast();
        assertThat(last.ecoNodes()).isEqualTo(1);
        List<String> labels = new ArrayList<>();
        for (int i = 0; i < config.nodes(); i++) {
            labels.add(sim.labelOf(i));
        }
        assertThat(labels).containsOnly("performance", "eco").filteredOn("eco"::equals).hasSize(1);
        // idle at the end: 4 × 80 W + 1 × 80 W
        assertThat(last.powerWatts()).isEqualTo(400.0);
    }

    /**
     * demand_sized_v1 on a small calibrated cluster (30 nodes of two types, a day): declared memory-bound work fills the
     * eco nodes (the preferred node affinity), whose cap then binds. It saves energy, within 2 points of the hindsight optimum and within the 5 % service level; each eco node takes its type's cap.
     */
    @Test
    void demandSizingFillsEcoNodesWithDeclaredWorkAndKeepsPerformanceJobsOnTime() {
        Map<String, String> params = new HashMap<>(Main.CALIBRATED_WORKLOAD);
        params.putAll(Map.of("cluster.nodes", "30", "cluster.types", "dell-r640:0.5,dell-r940:0.5",
                "workload.meanInterarrivalSeconds", "5.56", "planner.performanceCapWatts", "1000",
                "planner.ecoCapWattsByType", "dell-r640=50,dell-r940=100", "planner.queueHpMin", "12",
                "planner.queueHpMax", "30", "planner.queuePerfPerHpNode", "52", "optimizer.evaluations", "20"));
        SimConfig config = SimConfig.of(params);
        Comparison c = Comparison.run("small calibrated", config, 2);
        for (Baseline b : c.results().keySet()) {
            assertThat(c.get(b).finished()).isTrue();
            assertThat(c.get(b).violationSeconds()).as(b + " violations").isZero();
            // the bound holds on measured load curves, two types, caps by type and duty cycling too
            assertThat(c.bound().kWh()).as("bound vs " + b).isLessThanOrEqualTo(c.get(b).energyKWh());
        }
        // with the cap on the packages and memory-bound work drawing less, the saving is small but real
        // (before the cap acted on the packages D also saved no less than queue_aware_v1 here; it no longer does)
        assertThat(c.energyDeltaPercent(Baseline.D)).as("D saves").isLessThan(-0.25);
        assertThat(c.performanceSlowdown(Baseline.D)).isLessThanOrEqualTo(1.05);
        assertThat(c.gapToOptimum(Baseline.D)).as("within 2 pp of the optimum").isLessThanOrEqualTo(2.0);
        // the caps the planner gave the eco nodes, by type
        List<Double> ecoCaps = new ArrayList<>();
        Simulation sim = new Simulation(config, Workload.of(config.workload()), Baseline.D, new InProcessPlanner(
                new Planner(config.planner().withPolicy(Baseline.D.policy())), config.tickSeconds(), (t, plan, moved) -> {
            for (Transition tr : plan.transitions()) {
                if (tr.to() == io.joulie.api.v1alpha1.PowerState.ActiveEco) {
                    ecoCaps.add(plan.caps(tr, config.planner()).cpu().packagePowerCapWatts());
                }
            }
        }));
        sim.run();
        assertThat(ecoCaps).isNotEmpty().containsOnly(50.0, 100.0).contains(50.0, 100.0);
    }

    @Test
    void jobsLargerThanANodeAreRejected() {
        SimConfig config = SimConfig.of(Map.of("node.cores", "4"));
        assertThatThrownBy(() -> Simulation.standalone(config, Workload.of(config.workload()), Baseline.A))
                .hasMessageContaining("could never run");
    }
}
