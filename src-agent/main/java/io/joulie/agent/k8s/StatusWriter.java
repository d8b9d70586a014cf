package io.joulie.agent.k8s;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.joulie.api.v1alpha1.FieldManagers;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileStatus;
import io.joulie.api.v1alpha1.NodePowerProfileStatus.Applied;

import java.time.InstantSource;
import java.time.temporal.ChronoUnit;

/**
 * Writes the agent's answer, {@code status.applied} of a NodePowerProfile, with server-side apply under the agent's own
 * field manager ({@link FieldManagers#AGENT}) through the status subresource: the operator's fields of the
 * status are another manager's and stay as they are, and no read comes first (apply needs no resourceVersion).
 */
public final class StatusWriter implements StatusPublisher.Sink {
    private final KubernetesClient client;
    private final InstantSource clock;

    public StatusWriter(KubernetesClient client, InstantSource clock) {
        this.client = client;
        this.clock = clock;
    }

    @Override
    public void write(NodePowerProfile npp, Applied applied) {
        NodePowerProfile answer = new NodePowerProfile();
        answer.setMetadata(new ObjectMetaBuilder().withName(npp.getMetadata().getName()).build());
        answer.setStatus(NodePowerProfileStatus.ofApplied(new Applied(applied.generation(), applied.cpu(), applied.gpu(),
                clock.instant().truncatedTo(ChronoUnit.SECONDS).toString())));
        client.resource(answer).subresource("status").patch(FieldManagers.apply(FieldManagers.AGENT), answer);
    }
}
