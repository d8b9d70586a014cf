package io.joulie.planner;

import io.joulie.api.telemetry.PhysicalBounds;
import io.joulie.api.v1alpha1.PowerState;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * The energy eco saved against all performance, estimated from the measured CPU package power of the managed nodes
 * (decision 205). What a node in eco would draw at performance cannot be measured; nor can it be taken as what the node
 * drew when it last ran at performance, because a node goes eco when its load falls. So each node learns, while it runs
 * at performance (ActivePerformance or DrainingPerformance), its measured power by load: the share of its allocatable
 * cores its Pods request, in {@value #BUCKETS} buckets, an exponentially weighted mean in each. While it runs eco, its
 * reference at its current load (the bucket's mean, or the line between the nearest learnt buckets below and above;
 * never beyond them) minus its measured power, if positive, is the power saved. Eco time without a reference at that
 * load or without a fresh sample is counted as not estimated, not as a saving.
 *
 * <p>Scope, stated where the figure is shown (docs/metrics.md): CPU packages only (the routed power query); two
 * workloads with the same requests but different power at performance are not told apart; the references live in the
 * leader's memory, so a new leader learns again. One instance per leader; not thread-safe (the tick is one thread).
 */
public final class EnergyEstimate {
    /** Load buckets of a node's reference. */
    public static final int BUCKETS = 10;
    /** Weight of a new sample in its bucket's mean. */
    static final double WEIGHT = 0.2;

    /** One managed node at a tick: its state, its measured package power if fresh, its load (0..1, NaN unknown). */
    public record Sample(String node, PowerState state, OptionalDouble watts, double load) {
    }

    /**
     * What one tick adds.
     *
     * @param savedJoules        estimated energy eco saved
     * @param performanceJoules  measured energy of the nodes at performance
     * @param ecoJoules          measured energy of the nodes in eco
     * @param unestimatedSeconds node-seconds in eco without an estimate (no reference at that load, or no sample)
     */
    public record Step(double savedJoules, double performanceJoules, double ecoJoules, double unestimatedSeconds) {
        public static final Step NONE = new Step(0, 0, 0, 0);
    }

    private final Map<String, double[]> references = new HashMap<>();
    private Instant last;

    /**
     * Integrates the interval since the last call at the power seen now, then learns from these samples. An interval
     * longer than {@code maxInterval} is not counted: the replica was not planning (a pause, another leader counted it).
     */
    public Step record(Instant now, Duration maxInterval, List<Sample> samples) {
        double dt = 0;
        if (last == null || now.isAfter(last)) {
            Duration gap = last == null ? Duration.ZERO : Duration.between(last, now);
            dt = gap.compareTo(maxInterval) > 0 ? 0 : gap.toNanos() / 1e9;
            last = now;
        }
        double saved = 0;
        double performance = 0;
        double eco = 0;
        double unestimated = 0;
        Set<String> seen = new HashSet<>();
        for (Sample s : samples) {
            seen.add(s.node());
            OptionalDouble w = s.watts().isPresent() && PhysicalBounds.nodePackageWatts(s.watts().getAsDouble())
                    ? s.watts() : OptionalDouble.empty();
            int bucket = bucket(s.load());
            if (s.state() == PowerState.ActiveEco) {
                OptionalDouble ref = bucket < 0 ? OptionalDouble.empty() : reference(s.node(), bucket);
                if (w.isPresent()) {
                    eco += w.getAsDouble() * dt;
                }
                if (w.isPresent() && ref.isPresent()) {
                    saved += Math.max(0, ref.getAsDouble() - w.getAsDouble()) * dt;
                } else {
                    unestimated += dt;
                }
            } else if (w.isPresent()) {
                performance += w.getAsDouble() * dt;
                if (bucket >= 0) {
                    learn(s.node(), bucket, w.getAsDouble());
                }
            }
        }
        references.keySet().retainAll(seen);
        return new Step(saved, performance, eco, unestimated);
    }

    /** The bucket of a load (0..1, clamped above), or -1 when the load is not known. */
    static int bucket(double load) {
        if (!(load >= 0)) {
            return -1;
        }
        return Math.min(BUCKETS - 1, (int) (Math.min(load, 1) * BUCKETS));
    }

    private void learn(String node, int bucket, double watts) {
        double[] r = references.computeIfAbsent(node, n -> {
            double[] fresh = new double[BUCKETS];
            Arrays.fill(fresh, Double.NaN);
            return fresh;
        });
        r[bucket] = Double.isNaN(r[bucket]) ? watts : r[bucket] + WEIGHT * (watts - r[bucket]);
    }

    /** The node's reference at a bucket: learnt there, or between the nearest learnt buckets on both sides. */
    OptionalDouble reference(String node, int bucket) {
        double[] r = references.get(node);
        if (r == null) {
            return OptionalDouble.empty();
        }
        if (!Double.isNaN(r[bucket])) {
            return OptionalDouble.of(r[bucket]);
        }
        int below = bucket - 1;
        while (below >= 0 && Double.isNaN(r[below])) {
            below--;
        }
        int above = bucket + 1;
        while (above < BUCKETS && Double.isNaN(r[above])) {
            above++;
        }
        if (below < 0 || above >= BUCKETS) {
            return OptionalDouble.empty();
        }
        double f = (double) (bucket - below) / (above - below);
        return OptionalDouble.of(r[below] + f * (r[above] - r[below]));
    }

    /** How many nodes have a reference (memory: {@value #BUCKETS} doubles each). */
    public int nodesLearnt() {
        return references.size();
    }
}
