package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.JoulieEvents;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.operator.config.OperatorConfig;
import io.joulie.operator.metrics.ErrorKind;
import io.joulie.operator.metrics.PlannerMetrics;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Records core/v1 Events. Events about cluster-scoped objects (NodePowerProfiles, Nodes) go to the
 * {@code default} namespace, as Kubernetes does; an Event that cannot be written is logged and counted,
 * never fatal.
 *
 * <p>Recording never waits for the API server: the Event is queued and written by a thread of its own, through a client
 * of its own that does not retry and gives up after {@link #WRITE_TIMEOUT_MS}. The shared client retries 429 and 5xx
 * ten times with backoff; a throttled Events API would otherwise hold the tick or the rescue that records the Event
 * (docs/reliability.md). At most {@link #QUEUED} Events wait; beyond that an Event is dropped, counted and logged.
 */
@ApplicationScoped
public class EventRecorder implements EventSink {
    private static final Logger LOG = Logger.getLogger(EventRecorder.class);
    static final String COMPONENT = "joulie-operator";
    static final int WRITE_TIMEOUT_MS = 5_000;
    static final int QUEUED = 1_000;

    private final KubernetesClient client;
    private final ThreadPoolExecutor writer = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(QUEUED), Thread.ofPlatform().daemon().name("joulie-events").factory());
    private final ClusterView view;
    private final PlannerMetrics metrics;
    private final Clock clock;
    private final Optional<String> podName;
    private final Optional<String> podNamespace;

    public EventRecorder(KubernetesClient client, ClusterView view, PlannerMetrics metrics, OperatorConfig config, Clock clock) {
        this.client = new KubernetesClientBuilder().withConfig(new ConfigBuilder(client.getConfiguration())
                .withRequestRetryBackoffLimit(0).withRequestTimeout(WRITE_TIMEOUT_MS).build())
                .withKubernetesSerialization(client.getKubernetesSerialization()).build();
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
        var event = JoulieEvents.event(ref, type, reason.name(), message, COMPONENT, null, clock.instant());
        try {
            writer.execute(() -> write(event, ref, type, reason));
        } catch (RejectedExecutionException e) {
            metrics.error(ErrorKind.EVENT);
            LOG.warnf("Dropped %s Event %s on %s/%s (%d Events waiting to be written): %s", type, reason, ref.getKind(),
                    ref.getName(), QUEUED, message);
        }
    }

    private void write(io.fabric8.kubernetes.api.model.Event event, ObjectReference ref, String type, EventReason reason) {
        try {
            client.v1().events().inNamespace(event.getMetadata().getNamespace()).resource(event).create();
        } catch (RuntimeException e) {
            metrics.error(ErrorKind.EVENT);
            LOG.warnf("Could not record %s Event %s on %s/%s: %s", type, reason, ref.getKind(), ref.getName(), e.getMessage());
        }
    }

    /** Waits until every Event recorded so far has been written or given up (tests, and shutdown). */
    public void flush() {
        try {
            writer.submit(() -> { }).get(WRITE_TIMEOUT_MS * 2L, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
            LOG.debugf("Events not flushed: %s", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @PreDestroy
    void close() {
        writer.shutdown();
        try {
            writer.awaitTermination(WRITE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        client.close();
    }
}
