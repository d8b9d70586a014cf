package io.joulie.planner;

import io.joulie.api.v1alpha1.CapConfirmation;

import java.util.OptionalDouble;

/**
 * Whether a node's agent confirmed the cap the node's NodePowerProfile asks for after a tick's write, with the cap it
 * reported in force (written side by side with the desired one to the NodePowerProfile status).
 */
public record CapStatus(CapConfirmation confirmation, OptionalDouble appliedWatts, String message) {
    public static final CapStatus UNREPORTED = new CapStatus(CapConfirmation.Unreported, OptionalDouble.empty(),
            "no agent reports for this node");

    /** Whether the node may carry the {@code performance} label: its agent applied the cap, or no agent caps it. */
    public boolean admitsPerformance() {
        return confirmation == CapConfirmation.Confirmed || confirmation == CapConfirmation.Unreported;
    }
}
