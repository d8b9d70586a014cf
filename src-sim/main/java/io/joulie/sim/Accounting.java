package io.joulie.sim;

import io.joulie.planner.PodClass;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** What one run measures as it goes: energy, violations, completions, counts, the time series. */
final class Accounting {
    /** Every node's energy, CPU part and GPU boards. */
    double energyJoules;
    /** The GPU boards' share of it. */
    double gpuEnergyJoules;
    double violationSeconds;
    long evictions;
    long transitions;
    long ticks;
    double makespan;
    int completed;
    private final Map<PodClass, double[]> completion = new EnumMap<>(PodClass.class);
    private final Map<PodClass, Integer> completionCount = new EnumMap<>(PodClass.class);
    private final List<RunResult.Sample> series = new ArrayList<>();
    private final double[] finishTimes;

    Accounting(List<JobSpec> jobs) {
        finishTimes = new double[jobs.size()];
        for (PodClass c : PodClass.values()) {
            completion.put(c, new double[(int) jobs.stream().filter(j -> j.podClass() == c).count()]);
            completionCount.put(c, 0);
        }
    }

    void finished(JobSpec j, double at) {
        int count = completionCount.get(j.podClass());
        completion.get(j.podClass())[count] = at - j.arrival();
        completionCount.put(j.podClass(), count + 1);
        finishTimes[completed] = at;
        completed++;
        makespan = Math.max(makespan, at);
    }

    void sample(double t, List<SimNode> nodes, int running, int pending) {
        int perf = 0;
        int draining = 0;
        int eco = 0;
        double power = 0;
        for (SimNode n : nodes) {
            if (n.dirty) {
                n.refresh(0);
            }
            power += n.powerWatts;
            switch (n.state) {
                case ActivePerformance -> perf++;
                case DrainingPerformance -> draining++;
                case ActiveEco -> eco++;
            }
        }
        series.add(new RunResult.Sample(t, power, energyJoules / 3.6e6, perf, draining, eco, running, pending));
    }

    RunResult result(Baseline baseline, int jobsTotal, long wallMillis, RunResult.Parking parking) {
        Map<PodClass, double[]> done = new EnumMap<>(PodClass.class);
        completion.forEach((c, v) -> done.put(c, Arrays.copyOf(v, completionCount.get(c))));
        return new RunResult(baseline, energyJoules / 3.6e6, gpuEnergyJoules / 3.6e6, jobsTotal, completed, makespan, done,
                Arrays.copyOf(finishTimes, completed), violationSeconds,
                evictions, transitions, ticks, series, wallMillis, parking);
    }
}
