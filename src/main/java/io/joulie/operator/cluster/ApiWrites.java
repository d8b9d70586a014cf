package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.joulie.api.v1alpha1.NodePowerProfile;

/**
 * The API requests the actuation sends, one method per request: the port between {@link KubernetesActuator} (what
 * to write, in which order, against the caches) and the API server ({@link Fabric8ApiWrites}), so the same actuation
 * runs against a fake cluster with injected faults. Every method is one request; a failure is a
 * {@link io.fabric8.kubernetes.client.KubernetesClientException} (with the HTTP code where there is one).
 */
public interface ApiWrites {
    NodePowerProfile create(NodePowerProfile npp);

    /**
     * Applies the spec (server-side apply, the operator's field manager; the object's resourceVersion is the precondition:
     * a stale one is a 409).
     */
    NodePowerProfile update(NodePowerProfile npp);

    /**
     * Applies the operator's part of the status through the status subresource (server-side apply, the operator's field
     * manager: the agent's {@code status.applied} stays; resourceVersion precondition as for {@link #update}).
     */
    NodePowerProfile updateStatus(NodePowerProfile npp);

    /** Deletes the NodePowerProfile, with its resourceVersion as the precondition (a stale one is a 409). */
    void delete(NodePowerProfile npp);

    /** The NodePowerProfile as the API server has it now, or null (the re-read after a 409). */
    NodePowerProfile get(String name);

    /**
     * Sets, or with {@code value} null removes, one label of a node, on the condition that it still has the value
     * {@code expected}: a JSON patch whose first operation tests the value (the API server answers 422 when it
     * differs), so that a write decided on a stale view of the label is refused by the server. With {@code expected}
     * null (the label was absent: a node Joulie never labelled) a JSON merge patch without a condition: a JSON patch
     * cannot test for absence, and the Node's resourceVersion moves with every kubelet status update.
     */
    void label(Node node, String key, String expected, String value);

    /** Asks for a policy/v1 Eviction of a pod; false when refused (a PodDisruptionBudget, 429). */
    boolean evict(String namespace, String name);
}
