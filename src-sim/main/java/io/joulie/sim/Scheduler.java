package io.joulie.sim;

import io.joulie.planner.EfficientLoadScore;
import io.joulie.planner.PodClass;

import java.util.BitSet;
import java.util.List;

/**
 * Places jobs like kube-scheduler with a {@code joulie.io/power-profile} nodeSelector: a job may land only on
 * a node with enough free cores whose label value equals its selector (performance jobs therefore never on
 * {@code eco} or {@code draining-performance} nodes, eco jobs only on {@code eco} nodes); jobs without a
 * selector go anywhere. Among the fitting nodes it takes the one with the largest share of free cores
 * (kube-scheduler's least-allocated scoring), ties to the lowest index; a job that declares eco (its preferred node
 * affinity for {@code joulie.io/power-profile=eco}) takes an eco node when one fits, as the preferred affinity's
 * weight outranks the spread. With {@code ignoreProfiles} (baseline A:
 * no Joulie) every node fits every job's profile.
 *
 * <p>With {@link PlacementScore#EFFICIENT_LOAD} ({@code scheduler.score=efficient-load}) it takes instead the fitting
 * node with the highest {@link EfficientLoadScore} (the scheduler profile Joulie ships), ties to the lowest index, with
 * the same rules otherwise: a job that declares eco takes the best-scoring eco node that fits first, GPU jobs are
 * scored by cores among the GPU nodes they fit.
 *
 * <p>GPU nodes are tainted, as GPU clusters commonly taint them ({@code nvidia.com/gpu:NoSchedule}): only GPU jobs,
 * which tolerate the taint, land there, and only on a node with enough free boards as well as cores (least-allocated
 * by free cores, like the others); CPU jobs land only on nodes without GPUs.
 *
 * <p>Nodes without GPUs are indexed by (label, type, free cores) in bit sets, so a placement costs
 * O(labels × types × cores) (the efficient-load score depends only on a node's type and free cores: it is tabulated
 * per type and cores wanted, and the buckets are visited best score first); GPU nodes, few, are scanned.
 */
final class Scheduler {
    static final int PERFORMANCE = 0;
    static final int ECO = 1;
    static final int DRAINING = 2;
    /** No {@code joulie.io/power-profile} label (cluster mode, before the operator's first tick). */
    static final int NONE = 3;
    private static final int LABELS = 4;
    static final String[] LABEL_VALUES = {"performance", "eco", "draining-performance", null};

    private final boolean ignoreProfiles;
    private final PlacementScore score;
    private final List<NodeType> types;
    /** [label][type][free cores] → node indexes. */
    private final BitSet[][][] index;
    /** With the efficient-load score, [type][cores wanted][free cores] → the score (0 for buckets that do not fit). */
    private final long[][][] efficientLoadScores;
    /** [type][cores wanted] → the free-core counts that fit, best score first. */
    private final int[][][] byScore;
    /** The nodes with GPU boards, by index. */
    private final List<SimNode> gpuNodes;

    /** A least-allocated scheduler. */
    Scheduler(List<SimNode> nodes, List<NodeType> types, boolean ignoreProfiles) {
        this(nodes, types, ignoreProfiles, PlacementScore.LEAST_ALLOCATED);
    }

    Scheduler(List<SimNode> nodes, List<NodeType> types, boolean ignoreProfiles, PlacementScore score) {
        this.ignoreProfiles = ignoreProfiles;
        this.score = score;
        this.types = List.copyOf(types);
        this.gpuNodes = nodes.stream().filter(n -> n.type.hasGpus()).toList();
        index = new BitSet[LABELS][types.size()][];
        for (BitSet[][] byType : index) {
            for (int t = 0; t < types.size(); t++) {
                byType[t] = new BitSet[types.get(t).model().cores() + 1];
                for (int f = 0; f < byType[t].length; f++) {
                    byType[t][f] = new BitSet(nodes.size());
                }
            }
        }
        efficientLoadScores = new long[types.size()][][];
        byScore = new int[types.size()][][];
        if (score == PlacementScore.EFFICIENT_LOAD) {
            for (int t = 0; t < types.size(); t++) {
                int cores = types.get(t).model().cores();
                efficientLoadScores[t] = new long[cores + 1][cores + 1];
                byScore[t] = new int[cores + 1][];
                for (int want = 0; want <= cores; want++) {
                    long[] scores = efficientLoadScores[t][want];
                    for (int free = want; free <= cores; free++) {
                        scores[free] = efficientLoad(cores, free, want);
                    }
                    byScore[t][want] = java.util.stream.IntStream.rangeClosed(want, cores).boxed()
                            .sorted(java.util.Comparator.comparingLong((Integer f) -> -scores[f])).mapToInt(Integer::intValue).toArray();
                }
            }
        }
        nodes.forEach(this::add);
    }

    /** The label index of a value; an unknown value matches no selector, like a missing label. */
    static int labelOf(String value) {
        for (int i = 0; i < NONE; i++) {
            if (LABEL_VALUES[i].equals(value)) {
                return i;
            }
        }
        return NONE;
    }

    /** Whether a job of this class may run on a node labelled {@code label}. */
    boolean allows(PodClass c, int label) {
        if (ignoreProfiles) {
            return true;
        }
        return switch (c) {
            case PERFORMANCE -> label == PERFORMANCE;
            case ECO -> label == ECO;
            case UNCONSTRAINED -> true;
        };
    }

    /** Call before changing a node's label or used cores ... */
    void remove(SimNode n) {
        index[n.label][typeIndex(n)][n.freeCores()].clear(n.index);
    }

    /** ... and this after. */
    void add(SimNode n) {
        if (n.power != io.joulie.planner.ParkingPolicy.Power.ON) {
            return; // parked or booting: cordoned, takes no pod
        }
        index[n.label][typeIndex(n)][n.freeCores()].set(n.index);
    }

    private static int typeIndex(SimNode n) {
        return n.typeIndex;
    }

    /** The most free cores on a node without GPUs that admits class {@code c} (0 when none). */
    int maxFree(PodClass c) {
        int most = 0;
        for (int t = 0; t < types.size(); t++) {
            if (types.get(t).hasGpus()) {
                continue;
            }
            for (int free = index[0][t].length - 1; free > most; free--) {
                if (any(c, t, free)) {
                    most = free;
                    break;
                }
            }
        }
        return most;
    }

    /**
     * For each number of boards g ≥ 1, {@code most[g]} becomes the most free cores on a GPU node that admits class
     * {@code c} and has at least g free boards (0 when none); {@code most[0]} is left alone.
     */
    void maxFreeWithGpus(PodClass c, int[] most) {
        java.util.Arrays.fill(most, 1, most.length, 0);
        for (SimNode n : gpuNodes) {
            if (allows(c, n.label) && n.power == io.joulie.planner.ParkingPolicy.Power.ON) {
                for (int g = Math.min(n.freeGpus(), most.length - 1); g >= 1; g--) {
                    most[g] = Math.max(most[g], n.freeCores());
                }
            }
        }
    }

    /**
     * The GPU node for a GPU job: the best by the score on cores (least allocated by free cores, or efficient load) among
     * those it fits, ties to the lowest index; −1 when none.
     */
    int pickGpu(PodClass c, int cores, int gpus) {
        SimNode best = null;
        long bestScore = -1;
        for (SimNode n : gpuNodes) {
            if (!allows(c, n.label) || n.power != io.joulie.planner.ParkingPolicy.Power.ON || n.freeGpus() < gpus || n.freeCores() < cores) {
                continue;
            }
            if (score == PlacementScore.EFFICIENT_LOAD) {
                long s = efficientLoad(n.cores(), n.freeCores(), cores);
                if (s > bestScore) {
                    best = n;
                    bestScore = s;
                }
            } else if (best == null || (double) n.freeCores() / n.cores() > (double) best.freeCores() / best.cores()) {
                best = n;
            }
        }
        return best == null ? -1 : best.index;
    }

    /** {@link EfficientLoadScore} of a node of {@code cores} cores with {@code free} free for a job of {@code want}. */
    static long efficientLoad(int cores, int free, int want) {
        return EfficientLoadScore.score((cores - free) * 1000L, want * 1000L, cores * 1000L);
    }

    /** The node for a CPU job of class {@code c} asking {@code want} cores, or −1 when none fits. */
    int pick(PodClass c, int want) {
        return pick(c, want, false);
    }

    /** The node for a job, an eco node first when it prefers one, or −1 when none fits. */
    int pick(PodClass c, int want, boolean prefersEco) {
        if (prefersEco && !ignoreProfiles) {
            int eco = pick(c, want, ECO);
            if (eco >= 0) {
                return eco;
            }
        }
        return pick(c, want, -1);
    }

    /** The best-scoring among the nodes labelled {@code onlyLabel} (or every allowed label when −1). */
    private int pick(PodClass c, int want, int onlyLabel) {
        return score == PlacementScore.EFFICIENT_LOAD ? efficientLoad(c, want, onlyLabel) : leastAllocated(c, want, onlyLabel);
    }

    /**
     * The highest {@link EfficientLoadScore}, ties to the lowest index. The score depends only on a node's type and free
     * cores: the (type, free cores) buckets that fit are visited best score first, and the scan of a type stops at the
     * first bucket scoring less than the best node found.
     */
    private int efficientLoad(PodClass c, int want, int onlyLabel) {
        int best = -1;
        long bestScore = -1;
        for (int t = 0; t < types.size(); t++) {
            int cores = index[0][t].length - 1;
            if (types.get(t).hasGpus() || want > cores) {
                continue;
            }
            int[] order = byScore[t][want];
            long[] scores = efficientLoadScores[t][want];
            for (int free : order) {
                long s = scores[free];
                if (s < bestScore) {
                    break;
                }
                int i = lowest(c, t, free, onlyLabel);
                if (i >= 0 && (s > bestScore || i < best)) {
                    best = i;
                    bestScore = s;
                }
            }
        }
        return best;
    }

    /** Least-allocated: the largest share of free cores. */
    private int leastAllocated(PodClass c, int want, int onlyLabel) {
        int best = -1;
        double bestShare = -1;
        for (int t = 0; t < types.size(); t++) {
            if (types.get(t).hasGpus()) {
                continue;
            }
            int cores = index[0][t].length - 1;
            for (int free = cores; free >= want; free--) {
                double share = (double) free / cores;
                if (share < bestShare) {
                    break;
                }
                int i = lowest(c, t, free, onlyLabel);
                if (i >= 0) {
                    if (share > bestShare || i < best) {
                        best = i;
                        bestShare = share;
                    }
                    break;
                }
            }
        }
        return best;
    }

    private boolean any(PodClass c, int type, int free) {
        for (int l = 0; l < LABELS; l++) {
            if (allows(c, l) && !index[l][type][free].isEmpty()) {
                return true;
            }
        }
        return false;
    }

    private int lowest(PodClass c, int type, int free, int onlyLabel) {
        int best = -1;
        for (int l = 0; l < LABELS; l++) {
            if (allows(c, l) && (onlyLabel < 0 || l == onlyLabel)) {
                int i = index[l][type][free].nextSetBit(0);
                if (i >= 0 && (best < 0 || i < best)) {
                    best = i;
                }
            }
        }
        return best;
    }
}
