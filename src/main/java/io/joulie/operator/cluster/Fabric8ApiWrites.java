package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.joulie.api.v1alpha1.FieldManagers;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
                .withRequestRetryBackoffLimit(0).withRequestTimeout(WRITE_TIMEOUT_MS)
                // the field manager the API server records for a create (named after the user agent) is the operator's
                .withUserAgent(FieldManagers.OPERATOR).build())
                .withKubernetesSerialization(client.getKubernetesSerialization()).build();
    }

    @Override
    public NodePowerProfile create(NodePowerProfile npp) {
        return api.resource(npp).create();
    }

    @Override
    public NodePowerProfile update(NodePowerProfile npp) {
        NodePowerProfile spec = applied(npp);
        spec.setSpec(npp.getSpec());
        return api.resource(spec).patch(FieldManagers.apply(FieldManagers.OPERATOR), spec);
    }

    @Override
    public NodePowerProfile updateStatus(NodePowerProfile npp) {
        NodePowerProfile status = applied(npp);
        status.setStatus(npp.getStatus() == null ? null : npp.getStatus().operatorPart());
        return api.resource(status).subresource("status").patch(FieldManagers.apply(FieldManagers.OPERATOR), status);
    }

    /** What an apply names besides its fields: the object's name, and its resourceVersion as the precondition. */
    private static NodePowerProfile applied(NodePowerProfile npp) {
        NodePowerProfile out = new NodePowerProfile();
        out.setMetadata(new ObjectMetaBuilder().withName(npp.getMetadata().getName())
                .withResourceVersion(npp.getMetadata().getResourceVersion()).build());
        return out;
    }

    @Override
    public void delete(NodePowerProfile npp) {
        api.resource(npp).lockResourceVersion(npp.getMetadata().getResourceVersion()).delete();
    }

    @Override
    public NodePowerProfile get(String name) {
        return api.resources(NodePowerProfile.class).withName(name).get();
    }

    @Override
    public void label(Node node, String key, String expected, String value) {
        if (expected == null) {
            Map<String, String> label = new HashMap<>();
            label.put(key, value); // null: a merge patch removes the label
            String patch = api.getKubernetesSerialization().asJson(Map.of("metadata", Map.of("labels", label)));
            api.nodes().resource(node).patch(PatchContext.of(PatchType.JSON_MERGE), patch); // on the cached node: no GET
            return;
        }
        String path = "/metadata/labels/" + key.replace("~", "~0").replace("/", "~1");
        List<Map<String, String>> ops = new ArrayList<>();
        ops.add(op("test", path, expected));
        ops.add(op(value == null ? "remove" : "replace", path, value));
        api.nodes().resource(node).patch(PatchContext.of(PatchType.JSON), api.getKubernetesSerialization().asJson(ops));
    }

    /** One JSON-patch operation, its members in the usual order. */
    private static Map<String, String> op(String op, String path, String value) {
        Map<String, String> o = new java.util.LinkedHashMap<>();
        o.put("op", op);
        o.put("path", path);
        if (value != null) {
            o.put("value", value);
        }
        return o;
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
