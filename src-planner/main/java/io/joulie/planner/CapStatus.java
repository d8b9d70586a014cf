package io.joulie.planner;

import io.joulie.api.v1alpha1.CapConfirmation;

/**
 * The operator's verdict on a node agent's answer to the cap its NodePowerProfile asks for after a tick's write (written
 * to the NodePowerProfile's status beside the agent's own answer).
 */
public record CapStatus(CapConfirmation confirmation, String message) {
    public static final CapStatus UNREPORTED = new CapStatus(CapConfirmation.Unreported, "no agent serves this node");

    /** Whether the node may carry the {@code performance} label: its agent applied the cap, or no agent caps it. */
    public boolean admitsPerformance() {
        return confirmation == CapConfirmation.Confirmed || confirmation == CapConfirmation.Unreported;
    }
}
