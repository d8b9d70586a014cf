package io.joulie.agent.k8s;

import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.Family;
import io.joulie.agent.metrics.AgentMetrics;
import io.joulie.agent.metrics.ErrorKind;
import io.joulie.api.v1alpha1.JoulieEvents;
import org.jboss.logging.Logger;

import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;

/**
 * Records on the Node an Event for each change of what the agent did there (docs/metrics.md#events):
 * {@code CapApplied} and {@code CapRestored} (Normal), {@code CapBlocked} and {@code CapError} (Warning), with the backend
 * and the outcome's message, one per family (CPU, GPU) whose outcome changed; an outcome of no control records none. The
 * {@link StatusPublisher} calls it once the answer was written, so it records exactly when the node's answer for that
 * family changes (decision 13): a converged node, and an agent that restarts into the same outcome,
 * record nothing. The Event names the Node by name as its uid, as the kubelet's own do, so
 * {@code kubectl describe node} lists it without the agent reading the Node. A failure is logged and counted,
 * never fatal. At start it records {@code MsrUnavailable} (Warning) when the host's MSR devices cannot be read, with
 * why and what would make them readable.
 */
public final class NodeEvents implements StatusPublisher.Changes {
    private static final Logger LOG = Logger.getLogger(NodeEvents.class);
    static final String COMPONENT = "joulie-agent";

    /** The Event reasons, with their type. */
    public enum Reason {
        CapApplied("Normal"),
        CapBlocked("Warning"),
        CapError("Warning"),
        /** The limits found on the hardware were written back (the agent stopped, or the profile let go of the family). */
        CapRestored("Normal"),
        /** At start: the host has MSR devices the agent cannot read (e.g. refused by the runtime's device cgroup). */
        MsrUnavailable("Warning");

        final String type;

        Reason(String type) {
            this.type = type;
        }

        static Optional<Reason> of(ControlOutcome out) {
            return switch (out.result()) {
                case APPLIED -> Optional.of(CapApplied);
                case BLOCKED -> Optional.of(CapBlocked);
                case ERROR -> Optional.of(CapError);
                case RESTORED -> Optional.of(CapRestored);
                case NONE -> Optional.empty();
            };
        }
    }

    private final KubernetesClient client;
    private final InstantSource clock;
    private final AgentMetrics metrics;

    public NodeEvents(KubernetesClient client, InstantSource clock, AgentMetrics metrics) {
        this.client = client;
        this.clock = clock;
        this.metrics = metrics;
    }

    @Override
    public void changed(String node, Map<Family, ControlOutcome> changed) {
        changed.values().forEach(outcome -> record(node, outcome));
    }

    private void record(String node, ControlOutcome outcome) {
        Reason.of(outcome).ifPresent(reason -> record(node, reason, message(outcome)));
    }

    /** Records one Event about the Node; a failure is logged and counted. */
    public void record(String node, Reason reason, String message) {
        var about = new ObjectReferenceBuilder().withApiVersion("v1").withKind("Node").withName(node).withUid(node).build();
        var event = JoulieEvents.event(about, reason.type, reason.name(), message, COMPONENT, node, clock.instant());
        try {
            client.v1().events().inNamespace(event.getMetadata().getNamespace()).resource(event).create();
        } catch (KubernetesClientException e) {
            metrics.error(node, ErrorKind.EVENT);
            LOG.warnf("Node %s: could not record the %s Event: %s", node, reason, e.getMessage());
        }
    }

    static String message(ControlOutcome outcome) {
        return outcome.backend().label() + ": " + outcome.message();
    }
}
