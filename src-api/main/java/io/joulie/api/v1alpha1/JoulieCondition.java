package io.joulie.api.v1alpha1;

/** The condition types of {@code Joulie.status.conditions}; the constant's name is the type on the wire. */
public enum JoulieCondition {
    /** Every agent the DaemonSet wants runs ready and up to date. */
    Available,
    /** The agent DaemonSet is being created or rolled out. */
    Progressing,
    /** Something needs attention; the reason is the most important problem found ({@link ConditionReason}). */
    Degraded,
    /** The monitoring objects {@code spec.monitoring} asks for (written by the monitoring controller). */
    MonitoringReady
}
