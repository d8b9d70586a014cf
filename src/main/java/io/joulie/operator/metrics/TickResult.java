package io.joulie.operator.metrics;

import java.util.Locale;

/** The {@code result} label of {@code joulie_ticks_total} (docs/metrics.md). */
public enum TickResult {
    /** Planned and every write succeeded. */
    OK,
    /** Planned; some node's write failed (retried next tick). */
    PARTIAL,
    /** An exception escaped the tick. */
    ERROR,
    /** This replica does not hold the Lease. */
    STANDBY,
    /** A watch has not delivered its initial list or is reconnecting. */
    UNSYNCED,
    /** A {@code joulie.io} CRD installed is another project's: nothing is planned (docs/install.md). */
    FOREIGN_CRD,
    /** Leadership was lost while the tick wrote. */
    INTERRUPTED;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
