package io.joulie.api.v1alpha1;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The core/v1 Events both applications record (docs/metrics.md#events): one Event per occurrence (count 1), named
 * {@code <object>.<16 random hex digits>}, the message cut to 1024 characters; Events about cluster-scoped objects
 * (Nodes, NodePowerProfiles, the {@code Joulie} resource) go to the {@code default} namespace, as Kubernetes' own do.
 */
public final class JoulieEvents {
    /** The longest message an Event carries. */
    public static final int MESSAGE_LIMIT = 1024;

    private JoulieEvents() {
    }

    /**
     * @param type      {@code Normal} or {@code Warning}
     * @param component who reports it ({@code source.component}, {@code reportingComponent})
     * @param host      the node it was reported from ({@code source.host}, {@code reportingInstance}), or null
     */
    public static Event event(ObjectReference about, String type, String reason, String message, String component, String host,
                              Instant now) {
        String ns = about.getNamespace() == null ? "default" : about.getNamespace();
        String time = now.truncatedTo(ChronoUnit.SECONDS).toString();
        return new EventBuilder()
                .withNewMetadata().withName(name(about.getName())).withNamespace(ns).endMetadata()
                .withInvolvedObject(about).withType(type).withReason(reason)
                .withMessage(message.length() > MESSAGE_LIMIT ? message.substring(0, MESSAGE_LIMIT - 3) + "..." : message)
                .withNewSource().withComponent(component).withHost(host).endSource()
                .withReportingComponent(component).withReportingInstance(host)
                .withFirstTimestamp(time).withLastTimestamp(time).withCount(1)
                .build();
    }

    /** {@code <object>.<16 random hex digits>}, within the 253-character name limit. */
    public static String name(String object) {
        String prefix = object.length() > 236 ? object.substring(0, 236) : object;
        return prefix + "." + String.format("%016x", java.util.concurrent.ThreadLocalRandom.current().nextLong());
    }
}
