package io.joulie.planner;

import io.joulie.api.text.Durations;
import io.joulie.api.v1alpha1.PowerState;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The two-phase downgrade: a node planned eco goes DrainingPerformance first (keeps the performance cap,
 * admits no new performance pods) and reaches ActiveEco at a later tick, once no performance-only pod runs
 * on it, or when the escalation after the downgrade timeout says so. Even a node without such pods drains for
 * one tick: the scheduler may have bound one on the strength of the old label after the tick's snapshot, and
 * the next tick sees it. Upgrades to performance are always allowed at once.
 */
public final class StateGuard {
    /** At most this many pods are named in a reason. */
    static final int PODS_IN_REASON = 5;
    /** Added to the reason of a downgrade's first tick when no performance-only pod runs on the node. */
    public static final String SETTLING = "draining for one tick: no performance-only pod seen";

    private final Escalation escalation;
    private final Duration timeout;

    public StateGuard(Escalation escalation, Duration timeout) {
        this.escalation = escalation;
        this.timeout = timeout;
    }

    /**
     * Checks the transition of {@code node} to {@code requested} (ActivePerformance or ActiveEco) at
     * {@code now}.
     */
    public Transition check(ManagedNode node, PowerState requested, String policyName, Instant now) {
        PowerState from = node.state();
        if (requested != PowerState.ActiveEco) {
            String reason = "selected for performance by " + policyName;
            return from == PowerState.ActivePerformance
                    ? steady(node, requested, reason)
                    : move(node, requested, PowerState.ActivePerformance, now, Outcome.COMPLETED, reason);
        }
        String ecoReason = "selected for eco by " + policyName;
        if (from == PowerState.ActiveEco) {
            return steady(node, requested, ecoReason);
        }
        if (!node.hasPerformancePods()) {
            if (from == PowerState.ActivePerformance) {
                // Every downgrade drains, at least until the next tick: the label goes first, and a Pod the scheduler
                // bound while the node still said performance (after this tick's snapshot) is seen before the cap drops.
                return move(node, requested, PowerState.DrainingPerformance, now, Outcome.COMPLETED, ecoReason + "; " + SETTLING);
            }
            return move(node, requested, PowerState.ActiveEco, now, Outcome.COMPLETED, ecoReason);
        }
        String pods = describePods(node.performancePods());
        if (from == PowerState.ActivePerformance) {
            return move(node, requested, PowerState.DrainingPerformance, now, Outcome.COMPLETED, "draining " + pods);
        }
        // DrainingPerformance with performance-only pods left
        Duration draining = Duration.between(node.since(), now);
        if (draining.compareTo(timeout) < 0) {
            return stay(node, requested, Outcome.BLOCKED, "draining " + pods, List.of());
        }
        String after = " after draining longer than " + Durations.format(timeout);
        return switch (escalation) {
            case HOLD -> stay(node, requested, Outcome.BLOCKED, "draining " + pods + "; timeout passed, escalation hold", List.of());
            case FORCE -> move(node, requested, PowerState.ActiveEco, now, Outcome.FORCED,
                    "forced to eco" + after + "; still running " + pods);
            case EVICT -> stay(node, requested, Outcome.EVICTED, "evicting " + pods + after, node.performancePods());
        };
    }

    /** "2 performance-only pods: ns/a, ns/b" (at most five named). */
    public static String describePods(List<String> pods) {
        StringBuilder sb = new StringBuilder();
        sb.append(pods.size()).append(pods.size() == 1 ? " performance-only pod: " : " performance-only pods: ");
        sb.append(String.join(", ", pods.subList(0, Math.min(PODS_IN_REASON, pods.size()))));
        if (pods.size() > PODS_IN_REASON) {
            sb.append(", +").append(pods.size() - PODS_IN_REASON).append(" more");
        }
        return sb.toString();
    }

    private static Transition steady(ManagedNode n, PowerState requested, String reason) {
        return new Transition(n.name(), n.state(), requested, n.state(), n.since(), Outcome.STEADY, reason, List.of());
    }

    private static Transition stay(ManagedNode n, PowerState requested, Outcome outcome, String reason, List<String> evict) {
        return new Transition(n.name(), n.state(), requested, n.state(), n.since(), outcome, reason, evict);
    }

    private static Transition move(ManagedNode n, PowerState requested, PowerState to, Instant now, Outcome outcome,
                                   String reason) {
        return new Transition(n.name(), n.state(), requested, to, now, outcome, reason, List.of());
    }
}
