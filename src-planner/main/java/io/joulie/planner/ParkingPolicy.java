package io.joulie.planner;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Which nodes to park (cordon, drain, power off) and which to wake, from per-node facts and the cluster's demand. Pure:
 * no clock (the caller passes {@code now}), no client; the twin calls it at each planner tick when
 * {@code parking.enabled=true}. Parking is independent of the performance/eco profiles: a parked node is neither.
 *
 * <p>The rules:
 * <ul>
 *   <li>The <b>warm pool</b> is the free cores of the powered nodes (the free cores of the nodes that are on, plus all
 *       the cores of the nodes booting). Its target is {@code warmFraction × peakRequestedCores + largestJobCores}, the
 *       peak being the most cores requested (running and pending jobs) over the caller's recent window.</li>
 *   <li><b>Wake</b> parked nodes when jobs wait that fit no node that is on (their cores beyond what booting nodes
 *       will offer), or when the warm pool is below its target: as many as cover the shortfall, nodes that fit the
 *       largest waiting job first, then the most cores, then by name.</li>
 *   <li><b>Park</b> (only when nothing is woken and no job waits) nodes that are on, hold no pod and have been empty
 *       for at least {@code idle}, longest empty first, as long as the warm pool stays at or above its target without
 *       them and at least {@code minNodes} nodes stay powered. A node with pods is never parked.</li>
 * </ul>
 */
public final class ParkingPolicy {
    private ParkingPolicy() {
    }

    /** A node's power as parking sees it. */
    public enum Power {
        /** Powered and schedulable. */
        ON,
        /** Cordoned and powered off (or on its way there). */
        PARKED,
        /** Powering on: takes no pod yet, counts towards the warm pool. */
        BOOTING
    }

    /**
     * @param idle         how long a node must have held no pod before it may be parked
     * @param warmFraction the warm pool's share of the recent peak of requested cores
     * @param minNodes     never fewer powered (on or booting) nodes than this
     */
    public record Settings(Duration idle, double warmFraction, int minNodes) {
        public Settings {
            if (idle == null || idle.isNegative() || !(warmFraction >= 0) || minNodes < 0) {
                throw new IllegalArgumentException("parking: idle ≥ 0, warmFraction ≥ 0 and minNodes ≥ 0 are required");
            }
        }
    }

    /**
     * What parking knows of a node.
     *
     * @param emptySince when it last became empty (null while it holds a pod)
     */
    public record NodeFacts(String name, String type, int cores, int freeCores, Instant emptySince, Power power) {
        public boolean empty() {
            return emptySince != null;
        }
    }

    /**
     * The cluster's demand.
     *
     * @param peakRequestedCores the most cores requested by running and pending jobs over the recent window
     * @param largestJobCores    the cores of the largest job to make room for
     * @param waitingCores       the cores of each pending job that fits no node that is on now
     */
    public record Demand(long peakRequestedCores, int largestJobCores, List<Integer> waitingCores) {
        public Demand {
            waitingCores = List.copyOf(waitingCores);
        }
    }

    /** The nodes to park now and the nodes to wake now, by name. */
    public record Decision(List<String> park, List<String> wake) {
        public static final Decision NONE = new Decision(List.of(), List.of());
    }

    /** The warm pool's target in cores. */
    public static long warmTarget(Settings s, Demand d) {
        return (long) Math.ceil(s.warmFraction() * d.peakRequestedCores()) + d.largestJobCores();
    }

    public static Decision decide(Settings s, Instant now, List<NodeFacts> nodes, Demand d) {
        long target = warmTarget(s, d);
        long warm = 0;
        long bootingCores = 0;
        int powered = 0;
        int largestOn = 0;
        for (NodeFacts n : nodes) {
            switch (n.power()) {
                case ON -> {
                    warm += n.freeCores();
                    powered++;
                    largestOn = Math.max(largestOn, n.cores());
                }
                case BOOTING -> {
                    warm += n.cores();
                    bootingCores += n.cores();
                    powered++;
                    largestOn = Math.max(largestOn, n.cores());
                }
                case PARKED -> {
                }
            }
        }
        long waiting = d.waitingCores().stream().mapToLong(Integer::longValue).sum();
        int largestWaiting = d.waitingCores().stream().mapToInt(Integer::intValue).max().orElse(0);
        long shortfall = Math.max(target - warm, waiting - bootingCores);
        boolean needsBigger = largestWaiting > largestOn;
        if (shortfall > 0 || needsBigger) {
            List<NodeFacts> parked = new ArrayList<>(nodes.stream().filter(n -> n.power() == Power.PARKED).toList());
            parked.sort(Comparator.comparing((NodeFacts n) -> n.cores() < largestWaiting)
                    .thenComparing(Comparator.comparingInt(NodeFacts::cores).reversed()).thenComparing(NodeFacts::name));
            List<String> wake = new ArrayList<>();
            for (NodeFacts n : parked) {
                if (shortfall <= 0 && !needsBigger) {
                    break;
                }
                wake.add(n.name());
                shortfall -= n.cores();
                needsBigger = needsBigger && n.cores() < largestWaiting;
            }
            return new Decision(List.of(), List.copyOf(wake));
        }
        if (!d.waitingCores().isEmpty()) {
            return Decision.NONE;
        }
        List<NodeFacts> idle = new ArrayList<>(nodes.stream().filter(n -> n.power() == Power.ON && n.empty()
                && n.freeCores() == n.cores() && !n.emptySince().plus(s.idle()).isAfter(now)).toList());
        idle.sort(Comparator.comparing(NodeFacts::emptySince).thenComparing(NodeFacts::name));
        List<String> park = new ArrayList<>();
        for (NodeFacts n : idle) {
            if (powered - 1 < s.minNodes()) {
                break;
            }
            if (warm - n.cores() < target) {
                continue;
            }
            park.add(n.name());
            warm -= n.cores();
            powered--;
        }
        return new Decision(List.copyOf(park), List.of());
    }
}
