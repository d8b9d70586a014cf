package io.joulie.sim;

import io.joulie.planner.PodClass;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What one run measured.
 *
 * @param baseline           which run
 * @param energyKWh          energy of all nodes from t = 0 until the last job finished (CPU parts and GPU boards)
 * @param gpuEnergyKWh       the GPU boards' share of it
 * @param jobsTotal          jobs in the workload
 * @param jobsCompleted      jobs that finished before {@code sim.maxSeconds}
 * @param makespanSeconds    finish time of the last job
 * @param completionTimes    per class, sorted completion times (finish − arrival) in seconds
 * @param finishTimes        when each completed job finished (seconds from the start), sorted
 * @param violationSeconds   seconds a performance-only job ran on a node whose applied cap was the eco cap
 *                           (summed over jobs)
 * @param evictions          jobs evicted by the escalation {@code evict} (restarted from scratch)
 * @param transitions        node state changes made by the guard
 * @param ticks              planner calls
 * @param series             one sample per planner interval
 * @param wallMillis         wall-clock time of the run
 * @param parking            what parking did ({@link Parking#NONE} when it was off)
 */
public record RunResult(Baseline baseline, double energyKWh, double gpuEnergyKWh, int jobsTotal, int jobsCompleted, double makespanSeconds,
                        Map<PodClass, double[]> completionTimes, double[] finishTimes, double violationSeconds, long evictions,
                        long transitions, long ticks, List<Sample> series, long wallMillis, Parking parking) {

    /** The same run reported as another baseline (a schedule run as H, reported as U). */
    public RunResult as(Baseline b) {
        return new RunResult(b, energyKWh, gpuEnergyKWh, jobsTotal, jobsCompleted, makespanSeconds, completionTimes, finishTimes,
                violationSeconds, evictions, transitions, ticks, series, wallMillis, parking);
    }

    /**
     * What parking did in a run.
     *
     * @param parks      nodes powered off
     * @param wakes      nodes powered on again
     * @param meanParked nodes parked, on average over the parking controller's ticks
     */
    public record Parking(long parks, long wakes, double meanParked) {
        /** A run without parking. */
        public static final Parking NONE = new Parking(0, 0, 0);
    }

    /** The cluster at one instant. */
    public record Sample(double t, double powerWatts, double energyKWh, int performanceNodes, int drainingNodes,
                         int ecoNodes, int runningJobs, int pendingJobs) {
    }

    public RunResult {
        Map<PodClass, double[]> copy = new EnumMap<>(PodClass.class);
        completionTimes.forEach((k, v) -> {
            double[] sorted = v.clone();
            Arrays.sort(sorted);
            copy.put(k, sorted);
        });
        completionTimes = copy;
        finishTimes = finishTimes.clone();
        Arrays.sort(finishTimes);
        series = List.copyOf(series);
    }

    /** The CPU parts' share of the energy to finish (the whole node without GPUs). */
    public double cpuEnergyKWh() {
        return energyKWh - gpuEnergyKWh;
    }

    /** All classes' completion times, sorted. */
    public double[] allCompletionTimes() {
        return completionTimes.values().stream().flatMapToDouble(Arrays::stream).sorted().toArray();
    }

    public static double mean(double[] v) {
        return v.length == 0 ? Double.NaN : Arrays.stream(v).average().orElse(Double.NaN);
    }

    /** Nearest-rank quantile of sorted values. */
    public static double quantile(double[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.clamp(rank - 1, 0, sorted.length - 1)];
    }

    /** Energy from t = 0 to {@code t} (linear between samples; the last sample beyond it). */
    public double energyKWhAt(double t) {
        RunResult.Sample prev = series.getFirst();
        for (RunResult.Sample s : series) {
            if (s.t() >= t) {
                double span = s.t() - prev.t();
                return span <= 0 ? s.energyKWh() : prev.energyKWh() + (s.energyKWh() - prev.energyKWh()) * (t - prev.t()) / span;
            }
            prev = s;
        }
        return energyKWh;
    }

    /** Jobs finished by {@code t} (seconds from the start). */
    public int completedBy(double t) {
        int i = Arrays.binarySearch(finishTimes, t);
        if (i < 0) {
            return -i - 1;
        }
        while (i + 1 < finishTimes.length && finishTimes[i + 1] == t) {
            i++;
        }
        return i + 1;
    }

    /** Whether every job finished (energy to finish is defined). */
    public boolean finished() {
        return jobsCompleted == jobsTotal;
    }

    public double meanCompletion(PodClass c) {
        return mean(completionTimes.getOrDefault(c, new double[0]));
    }
}
