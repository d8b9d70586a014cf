package io.joulie.sim;

import io.joulie.planner.Planner;
import io.joulie.planner.PodClass;
import io.joulie.sim.optimum.ClairvoyantSchedule;
import io.joulie.sim.optimum.EnergyBound;
import io.joulie.sim.optimum.HindsightOptimizer;
import io.joulie.sim.optimum.Schedule;
import io.joulie.sim.optimum.TimeIndexedBound;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The runs on one workload (the same jobs for all), the lower bound and the hindsight optimum, compared with A.
 *
 * @param name    scenario name
 * @param config  the configuration
 * @param results per baseline (H: the hindsight optimum)
 * @param bound   the lower bound on energy to finish
 * @param optimum how the hindsight optimum was found
 * @param timeBound the time-indexed lower bound (an LP over time slots, same action set as {@code bound})
 * @param constructive how the clairvoyant constructive schedule (U) was built
 */
public record Comparison(String name, SimConfig config, Map<Baseline, RunResult> results, EnergyBound bound,
                         HindsightOptimizer.Result optimum, TimeIndexedBound timeBound, ClairvoyantSchedule.Result constructive) {

    public Comparison {
        results = new EnumMap<>(results);
    }

    /**
     * Runs A and the policies in standalone mode (in parallel on up to {@code threads} threads), then the clairvoyant
     * constructive schedule, the hindsight search (seeded with the policies' own counts and the clairvoyant variants) and
     * the bounds.
     */
    public static Comparison run(String name, SimConfig config, int threads) {
        List<JobSpec> jobs = Workload.of(config.workload());
        List<Baseline> runs = new ArrayList<>(List.of(Baseline.A));
        runs.addAll(Baseline.policies());
        Map<Baseline, List<int[]>> counts = new EnumMap<>(Baseline.class);
        Map<Baseline, RunResult> results = new EnumMap<>(Baseline.class);
        List<Callable<RunResult>> tasks = new ArrayList<>();
        Map<String, Integer> typeOf = new java.util.HashMap<>();
        List<String> names = Simulation.nodeNames(config.nodes());
        for (int i = 0; i < names.size(); i++) {
            typeOf.put(names.get(i), config.typeOfEachNode().get(i));
        }
        int types = config.nodeTypes().size();
        for (Baseline b : runs) {
            List<int[]> perTick = new ArrayList<>();
            counts.put(b, perTick);
            tasks.add(() -> (b.policy() == null ? Simulation.standalone(config, jobs, b)
                    : new Simulation(config, jobs, b, new InProcessPlanner(new Planner(config.planner().withPolicy(b.policy())),
                    config.tickSeconds(), (t, plan, moved) -> perTick.add(performanceByType(plan.plan().targets(), typeOf, types)))))
                    .run());
        }
        Parallel.run(tasks, threads).forEach(r -> results.put(r.baseline(), r));
        double serviceLevel = config.maxPerformanceSlowdown() * results.get(Baseline.A).meanCompletion(PodClass.PERFORMANCE);
        ClairvoyantSchedule.Result constructive = ClairvoyantSchedule.best(config, jobs, threads, serviceLevel);
        results.put(Baseline.U, constructive.run().as(Baseline.U));
        // the search starts from the policies' own counts, every clairvoyant variant (already run) and its built-in seeds
        List<HindsightOptimizer.Seed> seeds = new ArrayList<>();
        for (Baseline b : Baseline.policies()) {
            seeds.add(new HindsightOptimizer.Seed(b.title(), policySchedule(counts.get(b), types), null));
        }
        for (ClairvoyantSchedule.Variant v : ClairvoyantSchedule.VARIANTS) {
            seeds.add(new HindsightOptimizer.Seed(v.name(), ClairvoyantSchedule.of(config, jobs, v), constructive.tried().get(v.name())));
        }
        HindsightOptimizer.Result optimum = HindsightOptimizer.optimize(config, jobs, seeds,
                new HindsightOptimizer.Options(config.optimizerEvaluations(), threads, serviceLevel));
        results.put(Baseline.H, optimum.run());
        return new Comparison(name, config, results, EnergyBound.of(config, jobs), optimum, TimeIndexedBound.solvedOrCoarser(config, jobs), constructive);
    }

    /** A plan's performance nodes per node type (index as in the configuration's types). */
    static int[] performanceByType(Map<String, io.joulie.api.v1alpha1.Profile> targets, Map<String, Integer> typeOf, int types) {
        int[] c = new int[types];
        targets.forEach((node, profile) -> {
            if (profile == io.joulie.api.v1alpha1.Profile.PERFORMANCE) {
                c[typeOf.get(node)]++;
            }
        });
        return c;
    }

    /**
     * A policy's run as a schedule for the hindsight search: its total count per tick on a cluster of one type (the
     * operator's eco selection then picks the same nodes); on several types its count per tick and type, so that the
     * search starts from the policy's choice of types too (demand_sized_v1's GPU eco pool, decision 193), which a total
     * count replayed through the eco selection would not reproduce.
     */
    static Schedule policySchedule(List<int[]> perTick, int types) {
        if (types == 1) {
            return Schedule.total(perTick.stream().mapToInt(c -> c[0]).toArray());
        }
        int[][] rows = new int[types][perTick.size()];
        for (int t = 0; t < perTick.size(); t++) {
            for (int k = 0; k < types; k++) {
                rows[k][t] = perTick.get(t)[k];
            }
        }
        return Schedule.perType(rows);
    }

    /** What a run may choose: its action space, as the report states it next to its result. */
    public String actionSpace(Baseline b) {
        return switch (b) {
            case A -> "nothing: every node performance, no cap";
            case B, C, D -> "performance-node count per tick, decided online by the policy; nodes by the operator's eco selection; configured caps";
            case H -> String.format(Locale.ROOT, "with hindsight: performance-node count per tick and node type, each type's eco cap "
                    + "among the bounds' caps; %d runs of the twin, blocks down to %d tick(s); started from %s", optimum.evaluations(),
                    optimum.finestBlock(), optimum.seed());
            case U -> "clairvoyant, greedy: per-tick, per-type count from the performance-only (and eco-only) demand ahead, "
                    + "best of " + ClairvoyantSchedule.VARIANTS.size() + " fill variants (" + constructive.variant() + ")";
        };
    }

    /** The θ bound's action space (and the time-indexed bound's: the same, with time slots). */
    public static final String BOUND_ACTION_SPACE = "any schedule with caps none / performance / the eco caps (every type may take "
            + "every type's), nodes always on, one frequency per node set by its cap, no violation";

    /**
     * The least energy to finish of a schedule that meets the service level: H's, U's when it is acceptable, or a
     * policy's when it is (a policy's run is a schedule of the same action set, and the search's replay of it through
     * the operator's eco selection may cost a little more than the run itself).
     */
    public double bestFeasibleKWh() {
        double best = get(Baseline.H).energyKWh();
        if (constructive.acceptable()) {
            best = Math.min(best, get(Baseline.U).energyKWh());
        }
        double level = config.maxPerformanceSlowdown() * get(Baseline.A).meanCompletion(PodClass.PERFORMANCE);
        for (Baseline b : Baseline.policies()) {
            RunResult r = get(b);
            if (r != null && HindsightOptimizer.acceptable(r, level)) {
                best = Math.min(best, r.energyKWh());
            }
        }
        return best;
    }

    public RunResult get(Baseline b) {
        return results.get(b);
    }

    /** Energy to finish against A in percent (negative = saved). */
    public double energyDeltaPercent(Baseline b) {
        return 100.0 * (get(b).energyKWh() / get(Baseline.A).energyKWh() - 1.0);
    }

    /**
     * The bound against A in percent: no schedule saves more within its action space (caps none / performance / eco,
     * nodes always on, one frequency per node set by its cap).
     */
    public double boundDeltaPercent() {
        return 100.0 * (bound.kWh() / get(Baseline.A).energyKWh() - 1.0);
    }

    /** The time-indexed bound against A in percent (same action set as {@link #boundDeltaPercent}, time slots respected). */
    public double timeBoundDeltaPercent() {
        return 100.0 * (timeBound.kWh() / get(Baseline.A).energyKWh() - 1.0);
    }

    /** How far a run is from the time-indexed bound, in percentage points of A's energy to finish. */
    public double gapToTimeBound(Baseline b) {
        return 100.0 * (get(b).energyKWh() - timeBound.kWh()) / get(Baseline.A).energyKWh();
    }

    /** How far a run is from the bound, in percentage points of A's energy to finish. */
    public double gapToBound(Baseline b) {
        return 100.0 * (get(b).energyKWh() - bound.kWh()) / get(Baseline.A).energyKWh();
    }

    /** How far a run is from the hindsight optimum, in percentage points of A's energy to finish. */
    public double gapToOptimum(Baseline b) {
        return 100.0 * (get(b).energyKWh() - get(Baseline.H).energyKWh()) / get(Baseline.A).energyKWh();
    }

    /** The common window: until the first run's last job finished (every run is busy until then). */
    public double windowSeconds() {
        return results.values().stream().mapToDouble(RunResult::makespanSeconds).min().orElse(0);
    }

    /** Energy change against A in percent over the common window: the power saved while busy. */
    public double windowEnergyDeltaPercent(Baseline b) {
        double t = windowSeconds();
        return 100.0 * (get(b).energyKWhAt(t) / get(Baseline.A).energyKWhAt(t) - 1.0);
    }

    /** Mean completion time of a class relative to A (1.0 = no slowdown); NaN when the class has no jobs. */
    public double slowdown(Baseline b, PodClass c) {
        return get(b).meanCompletion(c) / get(Baseline.A).meanCompletion(c);
    }

    /** Mean completion time of performance-only jobs relative to A (1.0 = no slowdown). */
    public double performanceSlowdown(Baseline b) {
        return slowdown(b, PodClass.PERFORMANCE);
    }

    /** Mean completion time of all jobs relative to A. */
    public double overallSlowdown(Baseline b) {
        return RunResult.mean(get(b).allCompletionTimes()) / RunResult.mean(get(Baseline.A).allCompletionTimes());
    }

    /** The baselines other than A, in order. */
    public List<Baseline> compared() {
        return results.keySet().stream().filter(b -> b != Baseline.A).toList();
    }

    /** One line: energy to finish the same jobs against A, the bound and the optimum, violations, slowdown. */
    public String headline() {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                "energy to finish the same %d jobs vs all performance: ", get(Baseline.A).jobsTotal()));
        List<String> parts = new ArrayList<>();
        for (Baseline b : compared()) {
            parts.add(String.format(Locale.ROOT, "%s (%s) %+.1f %% (%.0f s violations, performance jobs %.2fx A's mean completion time)",
                    b, b.title(), energyDeltaPercent(b), get(b).violationSeconds(), performanceSlowdown(b)));
        }
        sb.append(String.join("; ", parts));
        sb.append(String.format(Locale.ROOT, "; no schedule with these caps (none, performance, eco), nodes always on, can save more than %.1f %% (lower bound; "
                + "per-job frequency or powering nodes off are outside it)", -boundDeltaPercent()));
        return sb.toString();
    }
}
