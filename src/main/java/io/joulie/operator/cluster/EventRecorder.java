package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.joulie.operator.config.OperatorConfig;
import io.joulie.operator.runtime.PlannerMetrics;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * Records core/v1 Events. Events about cluster-scoped objects (NodePowerProfiles, Nodes) go to the
 * {@code default} namespace, as Kubernetes does; an Event that cannot be written is logged and counted,
 * never fatal.
 */
@ApplicationScoped
public class EventRecorder {
    private static final Logger LOG = Logger.getLogger(EventRecorder.class);
    static final String COMPONENT = "joulie-operator";

    private final KubernetesClient client;
    private final PlannerMetrics metrics;
    private final Optional<String> podName;
    private final Optional<String> podNamespace;

    public EventRecorder(KubernetesClient client, PlannerMetrics metrics, OperatorConfig config) {
        this.client = client;
        this.metrics = metrics;
        this.podName = config.podName();
        this.podNamespace = config.podNamespace();
    }

    public void normal(HasMetadata about, String reason, String message) {
        record(reference(about), "Normal", reason, message);
    }

    public void warning(HasMetadata about, String reason, String message) {
        record(reference(about), "Warning", reason, message);
    }

    /** An Event about the operator itself: on its Pod when it knows it, else on its namespace. */
    public void operatorWarning(String reason, String message) {
        operatorEvent("Warning", reason, message);
    }

    public void operatorNormal(String reason, String message) {
        operatorEvent("Normal", reason, message);
    }

    private void operatorEvent(String type, String reason, String message) {
        String ns = podNamespace.orElse("default");
        ObjectReference ref = podName.isPresent()
                ? new ObjectReferenceBuilder().withApiVersion("v1").withKind("Pod").withName(podName.get()).withNamespace(ns).build()
                : new ObjectReferenceBuilder().withApiVersion("v1").withKind("Namespace").withName(ns).build();
        record(ref, type, reason, message);
    }

    private static ObjectReference reference(HasMetadata o) {
        return new ObjectReferenceBuilder().withApiVersion(o.getApiVersion()).withKind(o.getKind())
                .withName(o.getMetadata().getName()).withNamespace(o.getMetadata().getNamespace())
                .withUid(o.getMetadata().getUid()).build();
    }

    /** {@code <object>.<16 random hex digits>}, within the 253-character name limit. */
    static String eventName(String object) {
        String prefix = object.length() > 236 ? object.substring(0, 236) : object;
        return prefix + "." + String.format("%016x", java.util.concurrent.ThreadLocalRandom.current().nextLong());
    }

    private void record(ObjectReference ref, String type, String reason, String message) {
        String ns = ref.getNamespace() == null ? "default" : ref.getNamespace();
        Instant now = Instant.now();
        String time = now.truncatedTo(ChronoUnit.SECONDS).toString();
        try {
            client.v1().events().inNamespace(ns).resource(new EventBuilder()
                    .withNewMetadata().withName(eventName(ref.getName()))
                    .withNamespace(ns).endMetadata()
                    .withInvolvedObject(ref).withType(type).withReason(reason)
                    .withMessage(message.length() > 1024 ? message.substring(0, 1021) + "..." : message)
                    .withNewSource().withComponent(COMPONENT).endSource()
                    .withFirstTimestamp(time).withLastTimestamp(time).withCount(1)
                    .build()).create();
        } catch (KubernetesClientException e) {
            metrics.error("event");
            LOG.warnf("Could not record %s Event %s on %s/%s: %s", type, reason, ref.getKind(), ref.getName(), e.getMessage());
        }
    }
}
