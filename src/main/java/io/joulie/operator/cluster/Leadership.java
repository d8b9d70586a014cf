package io.joulie.operator.cluster;

/** Whether this replica holds the Lease now; asked before every write ({@link FencedApiWrites}). */
@FunctionalInterface
public interface Leadership {
    boolean held();
}
