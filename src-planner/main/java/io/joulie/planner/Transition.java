package io.joulie.planner;

import io.joulie.api.v1alpha1.PowerState;

import java.time.Instant;
import java.util.List;

/**
 * The guard's verdict for one node and one tick.
 *
 * @param node      node name
 * @param from      state before the tick
 * @param requested state the plan asked for (ActivePerformance or ActiveEco)
 * @param to        state after the tick
 * @param since     when the node entered {@code to}
 * @param outcome   how it went
 * @param reason    why the node is in {@code to} (written to the NodePowerProfile status)
 * @param evict     performance-only pods to evict ({@code namespace/name}), only with {@link Outcome#EVICTED}
 */
public record Transition(String node, PowerState from, PowerState requested, PowerState to, Instant since,
                         Outcome outcome, String reason, List<String> evict) {

    public Transition {
        evict = List.copyOf(evict);
    }

    /** The same verdict with another reason. */
    public Transition withReason(String newReason) {
        return new Transition(node, from, requested, to, since, outcome, newReason, evict);
    }

    public boolean changed() {
        return from != to;
    }
}
