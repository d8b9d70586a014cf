package io.joulie.agent.k8s;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.joulie.agent.control.ControlOutcome;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec;
import io.joulie.api.v1alpha1.TelemetryProfileStatus;
import io.joulie.api.v1alpha1.TelemetryProfileStatus.ControlResult;
import org.jboss.logging.Logger;

import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;

/**
 * Writes {@code status.control.cpu} of a node's node-scoped TelemetryProfile through the status
 * subresource, creating the profile ({@code node-<normalised node name>}, scope node, no routing, owned by
 * the Node, labelled {@code joulie.io/node=<node>} so that the node's agent alone watches it) when the node has none.
 * A profile this agent created before it labelled them gets the label first. The gpu part of an existing status is
 * kept.
 */
public final class StatusWriter implements StatusPublisher.Sink {
    private static final Logger LOG = Logger.getLogger(StatusWriter.class);
    private static final int ATTEMPTS = 3;
    private static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    private static final String AGENT = "joulie-agent";

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
    public void write(String node, Optional<TelemetryProfile> own, ControlOutcome outcome) {
        String name = own.map(p -> p.getMetadata().getName()).orElse(JoulieApi.nodePowerProfileName(node));
        TelemetryProfile tp = own.map(StatusWriter::copy).orElse(null);
        if (tp == null) {
            TelemetryProfile fresh = new TelemetryProfile();
            ObjectMetaBuilder meta = new ObjectMetaBuilder().withName(name).addToLabels(MANAGED_BY, AGENT);
            JoulieApi.nodeLabelValue(node).ifPresent(value -> meta.addToLabels(JoulieApi.NODE_LABEL, value));
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
        labelOwn(node, tp);
        ControlResult cpu = new ControlResult(outcome.backend().label(), outcome.result(), outcome.message(), outcome.observedByKey(),
                clock.instant().truncatedTo(ChronoUnit.SECONDS).toString());
        for (int attempt = 1; ; attempt++) {
            ControlResult gpu = tp.getStatus() == null || tp.getStatus().control() == null ? null : tp.getStatus().control().gpu();
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

    /** The node's label on a profile this agent created without it (earlier versions): once, with a JSON merge patch. */
    private void labelOwn(String node, TelemetryProfile tp) {
        Map<String, String> labels = tp.getMetadata().getLabels() == null ? Map.of() : tp.getMetadata().getLabels();
        Optional<String> value = JoulieApi.nodeLabelValue(node);
        if (value.isPresent() && AGENT.equals(labels.get(MANAGED_BY)) && !labels.containsKey(JoulieApi.NODE_LABEL)) {
            String patch = client.getKubernetesSerialization().asJson(
                    Map.of("metadata", Map.of("labels", Map.of(JoulieApi.NODE_LABEL, value.get()))));
            TelemetryProfile labelled = client.resources(TelemetryProfile.class).withName(tp.getMetadata().getName())
                    .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
            tp.getMetadata().setLabels(labelled.getMetadata().getLabels());
            tp.getMetadata().setResourceVersion(labelled.getMetadata().getResourceVersion());
            LOG.infof("Labelled TelemetryProfile %s %s=%s", tp.getMetadata().getName(), JoulieApi.NODE_LABEL, value.get());
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
