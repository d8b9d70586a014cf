package io.joulie.agent.k8s;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodeHardware;
import io.joulie.api.v1alpha1.NodeHardwareSpec;
import io.joulie.api.v1alpha1.NodeHardwareStatus;

import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * Writes a node's NodeHardware ({@code node-<normalised node name>}, spec.nodeName, owned by the Node so the garbage
 * collector removes it with the node) through the status subresource, creating the object when the node has none.
 */
public final class HardwareWriter implements HardwarePublisher.Sink {

    private final KubernetesClient client;
    private final InstantSource clock;

    public HardwareWriter(KubernetesClient client, InstantSource clock) {
        this.client = client;
        this.clock = clock;
    }

    @Override
    public Optional<NodeHardwareStatus> current(String node) {
        NodeHardware nhw = client.resources(NodeHardware.class).withName(JoulieApi.nodePowerProfileName(node)).get();
        return Optional.ofNullable(nhw).map(NodeHardware::getStatus).map(s -> new NodeHardwareStatus(s.cpu(), s.gpu(), null));
    }

    @Override
    public boolean write(String node, NodeHardwareStatus status) {
        String name = JoulieApi.nodePowerProfileName(node);
        NodeHardwareStatus stamped = new NodeHardwareStatus(status.cpu(), status.gpu(),
                clock.instant().truncatedTo(ChronoUnit.SECONDS).toString());
        NodeHardware nhw = client.resources(NodeHardware.class).withName(name).get();
        if (nhw == null) {
            Optional<Node> owner = NodeObjects.node(client, node);
            if (owner.isEmpty()) {
                return false;
            }
            NodeHardware fresh = new NodeHardware();
            fresh.setMetadata(NodeObjects.meta(name, node, owner));
            fresh.setSpec(new NodeHardwareSpec(node));
            nhw = NodeObjects.create(client, fresh, node);
        }
        NodeObjects.updateStatus(client, nhw, current -> {
            current.setStatus(stamped);
            return current;
        });
        return true;
    }
}
