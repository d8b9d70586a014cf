package io.joulie.agent.k8s;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.joulie.api.v1alpha1.JoulieApi;
import org.jboss.logging.Logger;

import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The object the agent keeps per node (its NodeHardware): created labelled as the agent's
 * and owned by the Node, so that the garbage collector removes them with it; their status written through the status
 * subresource, read again and retried after a conflict.
 */
final class NodeObjects {
    private static final Logger LOG = Logger.getLogger(NodeObjects.class);
    private static final int ATTEMPTS = 3;
    static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    static final String AGENT = "joulie-agent";

    private NodeObjects() {
    }

    /**
     * The metadata of a new object {@code name} for {@code node}: labelled as the agent's and with the node's name
     * ({@code joulie.io/node}, when the name is a valid label value), owned by the Node when it exists (empty owner
     * otherwise).
     */
    static ObjectMeta meta(String name, String node, Optional<Node> owner) {
        ObjectMetaBuilder meta = new ObjectMetaBuilder().withName(name).addToLabels(MANAGED_BY, AGENT);
        JoulieApi.nodeLabelValue(node).ifPresent(value -> meta.addToLabels(JoulieApi.NODE_LABEL, value));
        owner.ifPresent(n -> meta.addNewOwnerReference().withApiVersion("v1").withKind("Node").withName(n.getMetadata().getName())
                .withUid(n.getMetadata().getUid()).withBlockOwnerDeletion(false).endOwnerReference());
        return meta.build();
    }

    static Optional<Node> node(KubernetesClient client, String node) {
        return Optional.ofNullable(client.nodes().withName(node).get());
    }

    /** Creates {@code fresh}; if another writer created it first, the object as the server has it. */
    static <T extends CustomResource<?, ?>> T create(KubernetesClient client, T fresh, String node) {
        try {
            T created = client.resource(fresh).create();
            LOG.infof("Created %s %s for node %s", fresh.getKind(), fresh.getMetadata().getName(), node);
            return created;
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
            @SuppressWarnings("unchecked")
            Class<T> type = (Class<T>) fresh.getClass();
            return client.resources(type).withName(fresh.getMetadata().getName()).require();
        }
    }

    /**
     * Writes the status {@code withStatus} makes of the object (given the object as last read: its status is the base for
     * what is kept); after a conflict the object is read again and the status made anew, at most three times.
     */
    static <T extends CustomResource<?, ?>> void updateStatus(KubernetesClient client, T object, UnaryOperator<T> withStatus) {
        @SuppressWarnings("unchecked")
        Class<T> type = (Class<T>) object.getClass();
        T current = object;
        for (int attempt = 1; ; attempt++) {
            try {
                client.resource(withStatus.apply(current)).updateStatus();
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt >= ATTEMPTS) {
                    throw e;
                }
                current = client.resources(type).withName(object.getMetadata().getName()).require();
            }
        }
    }
}
