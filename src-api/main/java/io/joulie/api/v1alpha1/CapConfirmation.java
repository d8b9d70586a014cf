package io.joulie.api.v1alpha1;

/**
 * Whether the node's agent has applied the cap its NodePowerProfile asks for, as the operator reads the agent's report
 * ({@code TelemetryProfile.status.control.cpu}) against the NodePowerProfile's {@code metadata.generation}.
 */
public enum CapConfirmation {
    /** The agent applied this generation of the NodePowerProfile (and, for performance, holds no DVFS throttle). */
    Confirmed,
    /** The agent has not reported this generation applied yet (it may be down, busy, or still unthrottling). */
    Waiting,
    /** The agent answered this generation with {@code blocked} or {@code error}: the cap is not in force. */
    Refused,
    /**
     * No agent reports for the node (no node-scoped TelemetryProfile with a CPU result, or its CPU control is
     * {@code none}): nothing of Joulie's caps the node, so nothing can confirm a cap either.
     */
    Unreported
}
