package io.joulie.sim;

import io.joulie.planner.PodClass;

import java.util.BitSet;
import java.util.List;

/**
 * Places jobs like kube-scheduler with a {@code joulie.io/power-profile} nodeSelector: a job may land only on
 * a node with enough free cores whose label value equals its selector (performance jobs therefore never on
 * {@code eco} or {@code draining-performance} nodes, eco jobs only on {@code eco} nodes); jobs without a
 * selector go anywhere. Among the fitting nodes it takes the one with the most free cores (kube-scheduler's
 * least-allocated scoring), ties to the lowest index. With {@code ignoreProfiles} (baseline A: no Joulie)
 * every node fits every job.
 *
 * <p>Nodes are indexed by (label, free cores) in bit sets, so a placement costs O(labels × cores).
 */
final class Scheduler {
    static final int PERFORMANCE = 0;
    static final int ECO = 1;
    static final int DRAINING = 2;
    /** No {@code joulie.io/power-profile} label (cluster mode, before the operator's first tick). */
    static final int NONE = 3;
    private static final int LABELS = 4;
    static final String[] LABEL_VALUES = {"performance", "eco", "draining-performance", null};

    private final int cores;
    private final boolean ignoreProfiles;
    private final BitSet[][] byLabelAndFree;

    Scheduler(List<SimNode> nodes, int cores, boolean ignoreProfiles) {
        this.cores = cores;
        this.ignoreProfiles = ignoreProfiles;
        byLabelAndFree = new BitSet[LABELS][cores + 1];
        for (BitSet[] row : byLabelAndFree) {
            for (int f = 0; f <= cores; f++) {
                row[f] = new BitSet(nodes.size());
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
        byLabelAndFree[n.label][cores - n.usedCores].clear(n.index);
    }

    /** ... and this after. */
    void add(SimNode n) {
        byLabelAndFree[n.label][cores - n.usedCores].set(n.index);
    }

    /** The most free cores on a node that admits class {@code c} (0 when none). */
    int maxFree(PodClass c) {
        for (int free = cores; free > 0; free--) {
            for (int l = 0; l < LABELS; l++) {
                if (allows(c, l) && !byLabelAndFree[l][free].isEmpty()) {
                    return free;
                }
            }
        }
        return 0;
    }

    /** The node for a job of class {@code c} asking {@code want} cores, or −1 when none fits. */
    int pick(PodClass c, int want) {
        for (int free = cores; free >= want; free--) {
            int best = -1;
            for (int l = 0; l < LABELS; l++) {
                if (allows(c, l)) {
                    int i = byLabelAndFree[l][free].nextSetBit(0);
                    if (i >= 0 && (best < 0 || i < best)) {
                        best = i;
                    }
                }
            }
            if (best >= 0) {
                return best;
            }
        }
        return -1;
    }
}
