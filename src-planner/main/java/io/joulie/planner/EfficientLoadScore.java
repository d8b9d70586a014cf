package io.joulie.planner;

import java.util.List;

/**
 * The score by which the scheduler profile Joulie ships (kubernetes/scheduler/kube-scheduler-config.yaml,
 * decision 210) fills nodes to their efficient load: kube-scheduler's {@code NodeResourcesFit} plugin with the
 * {@code RequestedToCapacityRatio} strategy on CPU, this {@link #SHAPE}. Pure; the twin's scheduler scores with it
 * and a test checks the shipped file holds the same shape.
 *
 * <p>The shape is a broken line through (utilisation %, score 0–10) points: from {@value #FLOOR} at an empty node up to
 * 10 at {@value #TARGET_PERCENT} % and from 1 just above it down to 0 at 100 %. A node the Pod leaves at or under the
 * target therefore outscores every node it would take over it (an empty one included): among the first, the fullest
 * wins (nodes fill up to the target); when no node stays under it, the emptiest wins (spreading, as the default score
 * does). On a SPECpower-shaped server the energy per unit of work is lowest around 60–70 % load and rises steeply
 * towards 100 % (docs/simulation.md, "Placement").
 *
 * <p>{@link #score} computes what kube-scheduler computes, in the same integer arithmetic: utilisation
 * {@code requested × 100 / allocatable} after adding the Pod (integer division; 100 when the Pod overfills the node,
 * which the fit filter rejects anyway), the shape's scores times 10, linear between points with integer division.
 */
public final class EfficientLoadScore {
    /** The utilisation (percent of allocatable CPU requested, this Pod included) the shape peaks at. */
    public static final int TARGET_PERCENT = 60;
    /** The score of an empty node: above every node the Pod would take past the target. */
    public static final int FLOOR = 2;
    /** The shape, (utilisation %, score 0–10) points, as the scheduler profile writes it. */
    public static final List<Point> SHAPE = List.of(new Point(0, FLOOR), new Point(TARGET_PERCENT, 10),
            new Point(TARGET_PERCENT + 1, 1), new Point(100, 0));

    /** One point of the shape. */
    public record Point(int utilization, int score) {
    }

    private EfficientLoadScore() {
    }

    /**
     * The node's score (0–100) for a Pod requesting {@code podMilli} CPU on a node with {@code requestedMilli} already
     * requested out of {@code allocatableMilli}.
     */
    public static long score(long requestedMilli, long podMilli, long allocatableMilli) {
        long requested = requestedMilli + podMilli;
        long utilization = allocatableMilli <= 0 || requested > allocatableMilli ? 100 : requested * 100 / allocatableMilli;
        return atUtilization(utilization);
    }

    /** The shape's score (0–100) at an integer utilisation. */
    public static long atUtilization(long utilization) {
        Point first = SHAPE.get(0);
        if (utilization <= first.utilization()) {
            return first.score() * 10L;
        }
        for (int i = 1; i < SHAPE.size(); i++) {
            Point p = SHAPE.get(i);
            if (utilization <= p.utilization()) {
                Point q = SHAPE.get(i - 1);
                long lo = q.score() * 10L;
                long hi = p.score() * 10L;
                return lo + (hi - lo) * (utilization - q.utilization()) / (p.utilization() - q.utilization());
            }
        }
        return SHAPE.get(SHAPE.size() - 1).score() * 10L;
    }
}
