package io.joulie.agent.metrics;

import java.util.Locale;

/** The {@code kind} of {@code joulie_agent_errors_total}. */
public enum ErrorKind {
    /** A control action ended in {@code error}. */
    CONTROL,
    /** No package power reading from the routed source. */
    TELEMETRY,
    /** Writing the answer (NodePowerProfile status.applied) failed. */
    STATUS,
    /** Putting the capability labels on the Node failed. */
    LABELS,
    /** A reconcile threw. */
    RECONCILE,
    /** Recording an Event on the Node failed. */
    EVENT;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
