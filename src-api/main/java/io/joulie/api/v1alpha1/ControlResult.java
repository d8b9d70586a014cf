package io.joulie.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What a node's agent did with one control family (CPU packages, GPU boards) of a NodePowerProfile. */
public enum ControlResult {
    /** The cap the profile asks for is in force. */
    @JsonProperty("Applied") APPLIED,
    /** The agent refused the request (invalid for the hardware, control unavailable): nothing was written. */
    @JsonProperty("Blocked") BLOCKED,
    /** Writing failed; the last good limits stay. */
    @JsonProperty("Error") ERROR,
    /** The agent does not control this family on the node (control type none, or no such hardware). */
    @JsonProperty("None") NONE,
    /**
     * The agent gave the limits it found on the hardware back (it stopped, or the profile no longer asks for the family):
     * the cap the profile asks for is not in force.
     */
    @JsonProperty("Restored") RESTORED
}
