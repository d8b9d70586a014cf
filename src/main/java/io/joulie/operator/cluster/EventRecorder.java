package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.JoulieEvents;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.operator.config.OperatorConfig;
import io.joulie.operator.metrics.ErrorKind;
import io.joulie.operator.metrics.PlannerMetrics;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.util.Optional;

/**
 * Records core/v1 Events. Events about cluster-scoped objects (NodePowerProfiles, Nodes) go to the
 * {@code default} namespace, as Kubernetes does; an Event that cannot be written is logged and counted,
 * never fatal.
 */
@ApplicationScoped
public class EventRecorder implements EventSink {
    private static final Logger LOG = Logger.getLogger(EventRecorder.class);
    static final String COMPONENT = "joulie-operator";

    private final KubernetesClient client;
    private final ClusterView view;
    private final PlannerMetrics metrics;
    private final Clock clock;
    private final Optional<String> podName;
    private final Optional<String> podNamespace;

    public EventRecorder(KubernetesClient client, ClusterView view, PlannerMetrics metrics, OperatorConfig config, Clock clock) {
        this.client = client;
        this.view = view;
        this.metrics = metrics;
        this.clock = clock;
        this.podName = config.podName();
        this.podNamespace = config.podNamespace();
    }

    @Override
    public void node(String node, EventReason reason, String message) {
        String name = JoulieApi.nodePowerProfileName(node);
        NodePowerProfile cached = view.profile(name);
        if (cached != null) {
            record(reference(cached), reason, message);
        } else {
            record(new ObjectReferenceBuilder().withApiVersion(JoulieApi.API_VERSION).withKind("NodePowerProfile")
                    .withName(name).build(), reason, message);
        }
    }

    @Override
    public void installation(EventReason reason, String message) {
        Joulie active = view.installation();
        if (active != null) {
            record(reference(active), reason, message);
        } else {
            operator(reason, message);
        }
    }

    /** An Event about {@code object} itself (any kind). */
    public void about(HasMetadata object, EventReason reason, String message) {
        record(reference(object), reason, message);
    }

    @Override
    public void operator(EventReason reason, String message) {
        String ns = podNamespace.orElse("default");
        ObjectReference ref = podName.isPresent()
                ? new ObjectReferenceBuilder().withApiVersion("v1").withKind("Pod").withName(podName.get()).withNamespace(ns).build()
                : new ObjectReferenceBuilder().withApiVersion("v1").withKind("Namespace").withName(ns).build();
        record(ref, reason, message);
    }

    private static ObjectReference reference(HasMetadata o) {
        return new ObjectReferenceBuilder().withApiVersion(o.getApiVersion()).withKind(o.getKind())
                .withName(o.getMetadata().getName()).withNamespace(o.getMetadata().getNamespace())
                .withUid(o.getMetadata().getUid()).build();
    }

    private void record(ObjectReference ref, EventReason reason, String message) {
        String type = reason.type().name();
        try {
            var event = JoulieEvents.event(ref, type, reason.name(), message, COMPONENT, null, clock.instant());
            client.v1().events().inNamespace(event.getMetadata().getNamespace()).resource(event).create();
        } catch (KubernetesClientException e) {
            metrics.error(ErrorKind.EVENT);
            LOG.warnf("Could not record %s Event %s on %s/%s: %s", type, reason, ref.getKind(), ref.getName(), e.getMessage());
        }
    }
}
