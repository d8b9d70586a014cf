package io.joulie.agent.k8s;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.Family;
import io.joulie.api.v1alpha1.JoulieApi;
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
 * the Node, labelled {@code joulie.io/node=<node>} so that the node's agent alone watches it) when the node has none.
 * A profile this agent created before it labelled them gets the label first. The other family's part of an existing
 * status is kept.
 */
public final class StatusWriter implements StatusPublisher.Sink {
    private static final Logger LOG = Logger.getLogger(StatusWriter.class);

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
        TelemetryProfile tp = own.map(StatusWriter::copy).orElseGet(() -> {
            TelemetryProfile fresh = new TelemetryProfile();
            fresh.setMetadata(NodeObjects.meta(JoulieApi.nodePowerProfileName(node), node, NodeObjects.node(client, node)));
            fresh.setSpec(new TelemetryProfileSpec(new TelemetryProfileSpec.Target(TelemetryProfileSpec.Scope.NODE, node), null, null));
            return NodeObjects.create(client, fresh, node);
        });
        labelOwn(node, tp);
        String now = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
        Map<Family, ControlResult> results = new EnumMap<>(Family.class);
        outcomes.forEach((family, outcome) -> results.put(family, new ControlResult(outcome.backend().label(), outcome.result(),
                outcome.message(), outcome.observedByKey(), outcome.devices().isEmpty() ? null : outcome.devices(), now)));
        NodeObjects.updateStatus(client, tp, current -> {
            TelemetryProfileStatus.ControlStatus was = current.getStatus() == null ? null : current.getStatus().control();
            current.setStatus(new TelemetryProfileStatus(new TelemetryProfileStatus.ControlStatus(
                    results.getOrDefault(Family.CPU, was == null ? null : was.cpu()), results.getOrDefault(Family.GPU, was == null ? null : was.gpu()))));
            return current;
        });
    }

    /** The node's label on a profile this agent created without it (earlier versions): once, with a JSON merge patch. */
    private void labelOwn(String node, TelemetryProfile tp) {
        Map<String, String> labels = tp.getMetadata().getLabels() == null ? Map.of() : tp.getMetadata().getLabels();
        Optional<String> value = JoulieApi.nodeLabelValue(node);
        if (value.isPresent() && NodeObjects.AGENT.equals(labels.get(NodeObjects.MANAGED_BY)) && !labels.containsKey(JoulieApi.NODE_LABEL)) {
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
