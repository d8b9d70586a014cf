package io.joulie.planner;

import io.joulie.api.v1alpha1.PowerState;

import java.time.Instant;
import java.util.List;

/**
 * The guard's verdict for one node and one tick.
 *
 * @param node       node name
 * @param from       state before the tick
 * @param requested  state the plan asked for (ActivePerformance or ActiveEco)
 * @param to         state after the tick
 * @param since      when the node entered {@code to}
 * @param outcome    how it went
 * @param reason     why the node is in {@code to} (written to the NodePowerProfile status)
 * @param evict      performance-only pods to evict ({@code namespace/name}), only with {@link Outcome#EVICTED}
 * @param label      the node's {@code joulie.io/power-profile} label after the tick: {@code performance} only once the
 *                   agent confirmed the performance cap (or no agent caps the node)
 * @param cap        whether the agent confirmed the cap {@code to} asks for, and the cap it reported
 * @param forcedPods performance-only pods escalation force leaves under the eco cap (ActiveEco only)
 */
public record Transition(String node, PowerState from, PowerState requested, PowerState to, Instant since,
                         Outcome outcome, String reason, List<String> evict, String label, CapStatus cap,
                         List<String> forcedPods) {

    public Transition {
        evict = List.copyOf(evict);
        forcedPods = List.copyOf(forcedPods);
    }

    /** A verdict for a node no agent reports for: its label is the state's. */
    public Transition(String node, PowerState from, PowerState requested, PowerState to, Instant since, Outcome outcome,
                      String reason, List<String> evict) {
        this(node, from, requested, to, since, outcome, reason, evict, to.labelValue(), CapStatus.UNREPORTED, List.of());
    }

    /** The same verdict with another reason. */
    public Transition withReason(String newReason) {
        return new Transition(node, from, requested, to, since, outcome, newReason, evict, label, cap, forcedPods);
    }

    public boolean changed() {
        return from != to;
    }

    /**
     * Whether the verdict gives the node more performance than it had: a move to ActivePerformance, or off the eco cap
     * (a rescue). Such writes go first in a tick (make before break).
     */
    public boolean raises() {
        return changed() && (to == PowerState.ActivePerformance || from == PowerState.ActiveEco);
    }

    /** Whether the node is ActivePerformance but its label waits for the agent to confirm the performance cap. */
    public boolean awaitsAgent() {
        return to == PowerState.ActivePerformance && !PowerState.ActivePerformance.labelValue().equals(label);
    }
}
