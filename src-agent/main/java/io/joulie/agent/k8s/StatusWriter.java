package io.joulie.agent.k8s;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.joulie.agent.backend.ControlOutcome;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec;
import io.joulie.api.v1alpha1.TelemetryProfileStatus;
import io.joulie.api.v1alpha1.TelemetryProfileStatus.ControlResult;
import org.jboss.logging.Logger;

import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * Writes {@code status.control.cpu} of a node's node-scoped TelemetryProfile through the status
 * subresource, creating the profile ({@code node-<normalised node name>}, scope node, no routing, owned by
 * the Node) when the node has none. The gpu part of an existing status is kept.
 */
public final class StatusWriter {
    private static final Logger LOG = Logger.getLogger(StatusWriter.class);
    private static final int ATTEMPTS = 3;

    private final KubernetesClient client;
    private final InstantSource clock;

    public StatusWriter(KubernetesClient client, InstantSource clock) {
        this.client = client;
        this.clock = clock;
    }

    /** The name of the profile the agent creates for a node: {@code node-} plus the normalised node name. */
    public static String profileName(String node) {
        return Joulie.nodePowerProfileName(node);
    }

    /**
     * @param ownName the name of the node's node-scoped profile if the cache has one
     * @return whether the profile had to be created
     */
    public boolean write(String node, Optional<String> ownName, ControlOutcome outcome) {
        String name = ownName.orElse(profileName(node));
        TelemetryProfile tp = client.resources(TelemetryProfile.class).withName(name).get();
        boolean created = false;
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
                created = true;
                LOG.infof("Created TelemetryProfile %s for node %s", name, node);
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    throw e;
                }
                tp = client.resources(TelemetryProfile.class).withName(name).require();
            }
        }
        ControlResult cpu = new ControlResult(outcome.backend(), outcome.result(), outcome.message(), outcome.observed(),
                clock.instant().truncatedTo(ChronoUnit.SECONDS).toString());
        for (int attempt = 1; ; attempt++) {
            ControlResult gpu = tp.getStatus() == null || tp.getStatus().control() == null ? null : tp.getStatus().control().gpu();
            tp.setStatus(new TelemetryProfileStatus(new TelemetryProfileStatus.ControlStatus(cpu, gpu)));
            try {
                client.resource(tp).updateStatus();
                return created;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt >= ATTEMPTS) {
                    throw e;
                }
                tp = client.resources(TelemetryProfile.class).withName(name).require();
            }
        }
    }
}
