package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reports, on the object itself, the enum fields a watch read as unset because this version does not know their value
 * ({@link UnknownEnumValues}): a Warning Event {@code UnknownValue} naming the fields and a log line, once per version
 * of the object. The watch goes on; the operator treats the fields as unset (it rewrites what it owns).
 */
@ApplicationScoped
public class UnknownValueReporter {
    private static final Logger LOG = Logger.getLogger(UnknownValueReporter.class);

    private final ClusterView view;
    private final EventRecorder events;
    /** Per object (kind/name), the resourceVersion last reported. */
    private final Map<String, String> reported = new ConcurrentHashMap<>();

    public UnknownValueReporter(ClusterView view, EventRecorder events) {
        this.view = view;
        this.events = events;
    }

    void start(@Observes StartupEvent ev) {
        view.onUnknownValues(this::report);
    }

    /** Called on a watch thread: the Event is queued ({@link EventRecorder} writes it on a thread of its own). */
    void report(HasMetadata object, List<String> fields) {
        String key = object.getKind() + "/" + object.getMetadata().getName();
        String version = object.getMetadata().getResourceVersion();
        if (version != null && version.equals(reported.put(key, version))) {
            return;
        }
        String message = String.join(", ", fields) + (fields.size() == 1 ? " is missing or holds" : " are missing or hold")
                + " a value this operator version does not know; read as unset";
        LOG.warnf("%s %s: %s", object.getKind(), object.getMetadata().getName(), message);
        events.about(object, EventReason.UnknownValue, message);
    }
}
