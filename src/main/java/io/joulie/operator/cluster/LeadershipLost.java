package io.joulie.operator.cluster;

/**
 * Thrown instead of sending a write once this replica no longer holds the Lease: the tick stops writing at once and
 * leaves the rest to the new leader.
 */
public final class LeadershipLost extends RuntimeException {
    public LeadershipLost() {
        super("this replica no longer holds the Lease", null, false, false);
    }
}
