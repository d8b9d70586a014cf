package io.joulie.agent.host;

import java.util.Map;

/**
 * What applying (or restoring) a power limit did.
 *
 * @param writtenUw  per package zone id, the microwatts written to its long_term {@code power_limit_uw}
 *                   (empty unless {@code APPLIED}; a failed apply rolls back what it wrote)
 * @param observedUw per package zone id, the long_term limit read back afterwards
 */
public record CapResult(Outcome outcome, String message, Map<String, Long> writtenUw, Map<String, Long> observedUw) {
    public enum Outcome {
        /** Every package's limit was written. */
        APPLIED,
        /** The request or the host refuses the limit (invalid cap, locked or read-only limit); nothing changed. */
        BLOCKED,
        /** An unexpected failure (I/O error, kernel rejected the value); previous limits were written back. */
        ERROR
    }

    public CapResult {
        writtenUw = Map.copyOf(writtenUw);
        observedUw = Map.copyOf(observedUw);
    }
}
