package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.joulie.api.v1alpha1.NodePowerProfile;

/**
 * {@link ApiWrites} through a client without request retries and with a short request timeout. The shared client
 * backs off and retries 429/5xx for many seconds, which would hold the tick (a refused eviction) and could let a write
 * land after this replica lost the Lease; a failed write is simply planned again.
 */
final class Fabric8ApiWrites implements ApiWrites, AutoCloseable {
    /** Well below the default renew deadline (10 s), so a write cannot outlive the Lease by much. */
    static final int WRITE_TIMEOUT_MS = 5_000;

    private final KubernetesClient api;

    /** A client of its own, reading and writing objects as {@code client} does (its serialization, {@link UnknownEnumValues}). */
    Fabric8ApiWrites(KubernetesClient client) {
        this.api = new KubernetesClientBuilder().withConfig(new ConfigBuilder(client.getConfiguration())
                .withRequestRetryBackoffLimit(0).withRequestTimeout(WRITE_TIMEOUT_MS).build())
                .withKubernetesSerialization(client.getKubernetesSerialization()).build();
    }

    @Override
    public NodePowerProfile create(NodePowerProfile npp) {
        return api.resource(npp).create();
    }

    @Override
    public NodePowerProfile update(NodePowerProfile npp) {
        return api.resource(npp).update();
    }

    @Override
    public NodePowerProfile updateStatus(NodePowerProfile npp) {
        return api.resource(npp).updateStatus();
    }

    @Override
    public void delete(NodePowerProfile npp) {
        api.resource(npp).delete();
    }

    @Override
    public NodePowerProfile get(String name) {
        return api.resources(NodePowerProfile.class).withName(name).get();
    }

    @Override
    public void label(Node node, String key, String value) {
        String json = "{\"metadata\":{\"labels\":{\"" + key + "\":" + (value == null ? "null" : "\"" + value + "\"") + "}}}";
        api.nodes().resource(node).patch(PatchContext.of(PatchType.JSON_MERGE), json); // on the cached node: no GET
    }

    @Override
    public boolean evict(String namespace, String name) {
        return api.pods().inNamespace(namespace).withName(name).evict();
    }

    @Override
    public void close() {
        api.close();
    }
}
