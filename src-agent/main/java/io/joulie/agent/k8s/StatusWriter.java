package io.joulie.agent.k8s;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.Family;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec;
import io.joulie.api.v1alpha1.TelemetryProfileStatus;
import io.joulie.api.v1alpha1.TelemetryProfileStatus.ControlResult;
import org.jboss.logging.Logger;

import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * Writes {@code status.control.<family>} of a node's node-scoped TelemetryProfile through the status
 * subresource, creating the profile ({@code node-<normalised node name>}, scope node, no routing, owned by
 * the Node) when the node has none. The other family's part of an existing status is kept.
 */
public final class StatusWriter implements StatusPublisher.Sink {
    private static final Logger LOG = Logger.getLogger(StatusWriter.class);
    private static final int ATTEMPTS = 3;

    private final KubernetesClient client;
    private final InstantSource clock;

    public StatusWriter(KubernetesClient client, InstantSource clock) {
        this.client = client;
        this.clock = clock;
    }

    /**
     * @param own the node's node-scoped profile as the informer cache has it, if any: it is written from a
     *            copy (the cached object stays untouched) and read again only after a conflict
     */
    @Override
    public void write(String node, Optional<TelemetryProfile> own, Map<Family, ControlOutcome> outcomes) {
        String name = own.map(p -> p.getMetadata().getName()).orElse(Joulie.nodePowerProfileName(node));
        TelemetryProfile tp = own.map(StatusWriter::copy).orElse(null);
        if (tp == null) {
            TelemetryProfile fresh = new TelemetryProfile();
            ObjectMetaBuilder meta = new ObjectMetaBuilder().withName(name).addToLabels("app.kubernetes.io/managed-by", "joulie-agent");
            // Owned by its Node, so that the garbage collector removes it with the node.
            Node owner = client.nodes().withName(node).get();
            if (owner != null) {
                meta.addNewOwnerReference().withApiVersion("v1").withKind("Node").withName(node)
                        .withUid(owner.getMetadata().getUid()).withBlockOwnerDeletion(false).endOwnerReference();
            }
            fresh.setMetadata(meta.build());
            fresh.setSpec(new TelemetryProfileSpec(new TelemetryProfileSpec.Target(TelemetryProfileSpec.Scope.NODE, node), null, null));
            try {
                tp = client.resource(fresh).create();
                LOG.infof("Created TelemetryProfile %s for node %s", name, node);
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    throw e;
                }
                tp = client.resources(TelemetryProfile.class).withName(name).require();
            }
        }
        String now = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
        Map<Family, ControlResult> results = new EnumMap<>(Family.class);
        outcomes.forEach((family, outcome) -> results.put(family, new ControlResult(outcome.backend().label(), outcome.result(),
                outcome.message(), outcome.observedByKey(), outcome.devices().isEmpty() ? null : outcome.devices(), now)));
        for (int attempt = 1; ; attempt++) {
            TelemetryProfileStatus.ControlStatus was = tp.getStatus() == null ? null : tp.getStatus().control();
            ControlResult cpu = results.getOrDefault(Family.CPU, was == null ? null : was.cpu());
            ControlResult gpu = results.getOrDefault(Family.GPU, was == null ? null : was.gpu());
            tp.setStatus(new TelemetryProfileStatus(new TelemetryProfileStatus.ControlStatus(cpu, gpu)));
            try {
                client.resource(tp).updateStatus();
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt >= ATTEMPTS) {
                    throw e;
                }
                tp = client.resources(TelemetryProfile.class).withName(name).require();
            }
        }
    }

    /** A copy to set the status on: spec and status are immutable records, the metadata is copied. */
    private static TelemetryProfile copy(TelemetryProfile cached) {
        TelemetryProfile tp = new TelemetryProfile();
        tp.setMetadata(new ObjectMetaBuilder(cached.getMetadata()).build());
        tp.setSpec(cached.getSpec());
        tp.setStatus(cached.getStatus());
        return tp;
    }
}
