package io.joulie.operator.runtime;

import io.joulie.operator.cluster.EventReason;
import io.joulie.operator.cluster.EventSink;

import java.util.ArrayList;
import java.util.List;

/** An {@link EventSink} that keeps what it is given, for tests: one line per Event, {@code about reason: message}. */
final class RecordingEvents implements EventSink {
    final List<String> recorded = new ArrayList<>();

    @Override
    public synchronized void node(String node, EventReason reason, String message) {
        recorded.add("node/" + node + " " + reason + ": " + message);
    }

    @Override
    public synchronized void installation(EventReason reason, String message) {
        recorded.add("joulie " + reason + ": " + message);
    }

    @Override
    public synchronized void operator(EventReason reason, String message) {
        recorded.add("operator " + reason + ": " + message);
    }

    synchronized List<String> of(EventReason reason) {
        return recorded.stream().filter(e -> e.contains(" " + reason + ": ")).toList();
    }
}
