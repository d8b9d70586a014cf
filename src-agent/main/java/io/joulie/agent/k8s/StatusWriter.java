package io.joulie.agent.k8s;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.Family;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec;
import io.joulie.api.v1alpha1.TelemetryProfileStatus;
import io.joulie.api.v1alpha1.TelemetryProfileStatus.ControlResult;

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
            fresh.setMetadata(NodeObjects.meta(JoulieApi.nodePowerProfileName(node), NodeObjects.node(client, node)));
            fresh.setSpec(new TelemetryProfileSpec(new TelemetryProfileSpec.Target(TelemetryProfileSpec.Scope.NODE, node), null, null));
            return NodeObjects.create(client, fresh, node);
        });
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

    /** A copy to set the status on: spec and status are immutable records, the metadata is copied. */
    private static TelemetryProfile copy(TelemetryProfile cached) {
        TelemetryProfile tp = new TelemetryProfile();
        tp.setMetadata(new ObjectMetaBuilder(cached.getMetadata()).build());
        tp.setSpec(cached.getSpec());
        tp.setStatus(cached.getStatus());
        return tp;
    }
}
