package io.joulie.planner;

import java.util.Arrays;
import java.util.Optional;

/** What happens when a node has been DrainingPerformance for longer than the downgrade timeout. */
public enum Escalation {
    /** Keep waiting; every tick counts as blocked. */
    HOLD,
    /** Commit eco anyway, with a Warning Event. */
    FORCE,
    /** Evict the performance-only pods through the Eviction API (PDBs respected), commit when clear. */
    EVICT;

    public String configValue() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    public static Optional<Escalation> fromConfig(String value) {
        String v = value == null ? "" : value.trim();
        return Arrays.stream(values()).filter(e -> e.configValue().equalsIgnoreCase(v)).findFirst();
    }
}
