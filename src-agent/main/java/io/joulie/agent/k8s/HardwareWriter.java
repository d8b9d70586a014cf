package io.joulie.agent.k8s;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.NodeHardware;
import io.joulie.api.v1alpha1.NodeHardwareSpec;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import org.jboss.logging.Logger;

import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * Writes a node's NodeHardware ({@code node-<normalised node name>}, spec.nodeName, owned by the Node so the garbage
 * collector removes it with the node) through the status subresource, creating the object when the node has none.
 */
public final class HardwareWriter implements HardwarePublisher.Sink {
    private static final Logger LOG = Logger.getLogger(HardwareWriter.class);
    private static final int ATTEMPTS = 3;

    private final KubernetesClient client;
    private final InstantSource clock;

    public HardwareWriter(KubernetesClient client, InstantSource clock) {
        this.client = client;
        this.clock = clock;
    }

    @Override
    public Optional<NodeHardwareStatus> current(String node) {
        NodeHardware nhw = client.resources(NodeHardware.class).withName(Joulie.nodePowerProfileName(node)).get();
        return Optional.ofNullable(nhw).map(NodeHardware::getStatus).map(s -> new NodeHardwareStatus(s.cpu(), s.gpu(), null));
    }

    @Override
    public boolean write(String node, NodeHardwareStatus status) {
        String name = Joulie.nodePowerProfileName(node);
        NodeHardwareStatus stamped = new NodeHardwareStatus(status.cpu(), status.gpu(),
                clock.instant().truncatedTo(ChronoUnit.SECONDS).toString());
        NodeHardware nhw = client.resources(NodeHardware.class).withName(name).get();
        if (nhw == null) {
            Node owner = client.nodes().withName(node).get();
            if (owner == null) {
                return false;
            }
            NodeHardware fresh = new NodeHardware();
            ObjectMetaBuilder meta = new ObjectMetaBuilder().withName(name).addToLabels("app.kubernetes.io/managed-by", "joulie-agent");
            meta.addNewOwnerReference().withApiVersion("v1").withKind("Node").withName(node)
                    .withUid(owner.getMetadata().getUid()).withBlockOwnerDeletion(false).endOwnerReference();
            fresh.setMetadata(meta.build());
            fresh.setSpec(new NodeHardwareSpec(node));
            try {
                nhw = client.resource(fresh).create();
                LOG.infof("Created NodeHardware %s for node %s", name, node);
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    throw e;
                }
                nhw = client.resources(NodeHardware.class).withName(name).require();
            }
        }
        for (int attempt = 1; ; attempt++) {
            nhw.setStatus(stamped);
            try {
                client.resource(nhw).updateStatus();
                return true;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt >= ATTEMPTS) {
                    throw e;
                }
                nhw = client.resources(NodeHardware.class).withName(name).require();
            }
        }
    }
}
