package io.joulie.operator.cluster;

/** Where the operator's Events go, by what they are about; recording one never fails the caller. */
public interface EventSink {
    /** An Event about a node's NodePowerProfile. */
    void node(String node, EventReason reason, String message);

    /** An Event about the active {@code Joulie} resource, or about the operator while there is none. */
    void installation(EventReason reason, String message);

    /** An Event about the operator itself: its Pod when it knows it, else its namespace. */
    void operator(EventReason reason, String message);
}
