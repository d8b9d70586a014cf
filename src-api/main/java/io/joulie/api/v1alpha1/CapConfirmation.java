package io.joulie.api.v1alpha1;

/**
 * The operator's reading of a node agent's answer ({@code NodePowerProfile.status.applied}) against the profile's
 * {@code metadata.generation}, over every control family the spec asks for.
 */
public enum CapConfirmation {
    /** The agent applied this generation for every family the spec asks for (and, for performance, holds no throttle). */
    Confirmed,
    /**
     * The agent has not answered this generation (it may be down, busy, or still unthrottling), or it answered that it
     * restored the limits it found on the hardware: the cap asked for is not in force.
     */
    Waiting,
    /** The agent answered this generation with {@code Blocked} or {@code Error} for a family: the cap is not in force. */
    Refused,
    /**
     * No agent serves the node (no answer and no NodeHardware of the node), or it controls none of the families the spec
     * asks for: nothing of Joulie's caps the node, so nothing can confirm a cap either.
     */
    Unreported
}
