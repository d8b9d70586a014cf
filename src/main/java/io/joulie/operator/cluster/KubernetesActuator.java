package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileSpec;
import io.joulie.api.v1alpha1.NodePowerProfileStatus;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.planner.ActuationAdapter;
import io.joulie.planner.NodeAssignment;
import io.joulie.operator.metrics.ApiWrite;
import io.joulie.operator.metrics.ErrorKind;
import io.joulie.operator.metrics.PlannerMetrics;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Objects;

/**
 * Writes assignments to the cluster, comparing against the informer caches first so that a steady
 * cluster costs no writes: the NodePowerProfile (created with an owner reference to its Node, spec
 * replaced, status through the status subresource) and the node's {@code joulie.io/power-profile} label
 * (JSON merge patch). A 409 Conflict is retried against a fresh read.
 */
@ApplicationScoped
public class KubernetesActuator implements ActuationAdapter {
    static final int ATTEMPTS = 3;
    /** Well below the default renew deadline (10 s), so a write cannot outlive the Lease by much. */
    static final int WRITE_TIMEOUT_MS = 5_000;

    private final KubernetesClient client;
    private final ClusterView view;
    private final PlannerMetrics metrics;
    private KubernetesClient apiClient;

    public KubernetesActuator(KubernetesClient client, ClusterView view, PlannerMetrics metrics) {
        this.client = client;
        this.view = view;
        this.metrics = metrics;
    }

    /**
     * Going down (draining or eco), the label changes first, so that no new performance pod is admitted
     * before the lower cap can be applied; going up, the NodePowerProfile (the cap) changes first and the
     * label last, so that performance pods only arrive once the performance cap is asked for.
     */
    @Override
    public boolean apply(NodeAssignment a) {
        String name = JoulieApi.nodePowerProfileName(a.node());
        NodePowerProfile current = view.profile(name);
        if (current != null && current.getSpec() != null && !a.node().equals(current.getSpec().nodeName())) {
            throw new IllegalStateException("NodePowerProfile " + name + " belongs to node " + current.getSpec().nodeName()
                    + "; node names " + a.node() + " and " + current.getSpec().nodeName() + " collide after normalisation");
        }
        boolean wrote = false;
        if (ClusterView.ownedByEarlierNode(current, view.node(a.node()))) {
            // Left by an earlier node of the same name (garbage collection has not caught up): replace it.
            api().resource(current).delete();
            metrics.write(ApiWrite.NODE_POWER_PROFILE_DELETE);
            current = null;
            wrote = true;
        }
        boolean down = a.state() != PowerState.ActivePerformance;
        wrote |= down && setLabel(a.node(), a.labelValue());
        wrote |= writeProfile(a, name, current);
        return (!down && setLabel(a.node(), a.labelValue())) || wrote;
    }

    private boolean writeProfile(NodeAssignment a, String name, NodePowerProfile current) {
        NodePowerProfileSpec spec = new NodePowerProfileSpec(a.node(), a.profile(),
                a.cpu(), a.gpu(), new NodePowerProfileSpec.PolicyRef(a.policyName()));
        boolean wrote = false;
        if (current == null) {
            current = create(name, a.node(), spec);
            wrote = true;
        }
        if (!spec.equals(current.getSpec())) {
            current = updateSpec(current, spec);
            wrote = true;
        }
        NodePowerProfileStatus status = new NodePowerProfileStatus(a.state(),
                a.since().truncatedTo(ChronoUnit.SECONDS).toString(), a.reason(), current.getMetadata().getGeneration());
        if (!status.equals(current.getStatus())) {
            updateStatus(current, status);
            wrote = true;
        }
        return wrote;
    }

    /** Removes the label first and the NodePowerProfile last, so that a failure half-way is retried. */
    @Override
    public boolean release(String node) {
        boolean wrote = setLabel(node, null);
        NodePowerProfile npp = view.profile(JoulieApi.nodePowerProfileName(node));
        if (npp != null && npp.getSpec() != null && node.equals(npp.getSpec().nodeName())) {
            api().resource(npp).delete();
            metrics.write(ApiWrite.NODE_POWER_PROFILE_DELETE);
            wrote = true;
        }
        return wrote;
    }

    /** Asks for a policy/v1 Eviction; a refusal (a PodDisruptionBudget, 429) is tried again next tick. */
    @Override
    public EvictionResult evict(String pod) {
        int slash = pod.indexOf('/');
        try {
            boolean evicted = api().pods().inNamespace(pod.substring(0, slash)).withName(pod.substring(slash + 1)).evict();
            metrics.write(ApiWrite.POD_EVICT);
            return evicted ? EvictionResult.EVICTED : EvictionResult.REFUSED;
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return EvictionResult.GONE;
            }
            throw e;
        }
    }

    /**
     * The client every write goes through: no request retries and a short request timeout. The shared
     * client backs off and retries 429/5xx for many seconds, which would hold the tick (a refused
     * eviction) and could let a write land after this replica lost the Lease; a failed write is simply
     * planned again on the next tick.
     */
    private synchronized KubernetesClient api() {
        if (apiClient == null) {
            apiClient = new KubernetesClientBuilder()
                    .withConfig(new ConfigBuilder(client.getConfiguration()).withRequestRetryBackoffLimit(0)
                            .withRequestTimeout(WRITE_TIMEOUT_MS).build())
                    .build();
        }
        return apiClient;
    }

    @PreDestroy
    synchronized void close() {
        if (apiClient != null) {
            apiClient.close();
        }
    }

    private NodePowerProfile create(String name, String node, NodePowerProfileSpec spec) {
        Node owner = view.node(node);
        NodePowerProfile npp = new NodePowerProfile();
        ObjectMetaBuilder meta = new ObjectMetaBuilder().withName(name);
        if (owner != null) {
            meta.withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("v1").withKind("Node")
                    .withName(node).withUid(owner.getMetadata().getUid()).build());
        }
        npp.setMetadata(meta.build());
        npp.setSpec(spec);
        try {
            NodePowerProfile created = api().resource(npp).create();
            metrics.write(ApiWrite.NODE_POWER_PROFILE_CREATE);
            return created;
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
            // It exists but the cache has not seen it yet (failover, watch catching up): carry on with it.
            metrics.error(ErrorKind.CONFLICT);
            return fresh(npp);
        }
    }

    private NodePowerProfile updateSpec(NodePowerProfile cached, NodePowerProfileSpec spec) {
        return onConflictRetry(cached, fresh -> {
            fresh.setSpec(spec);
            NodePowerProfile updated = api().resource(fresh).update();
            metrics.write(ApiWrite.NODE_POWER_PROFILE_UPDATE);
            return updated;
        });
    }

    private void updateStatus(NodePowerProfile cached, NodePowerProfileStatus status) {
        onConflictRetry(cached, fresh -> {
            fresh.setStatus(new NodePowerProfileStatus(status.state(), status.since(), status.reason(),
                    fresh.getMetadata().getGeneration()));
            NodePowerProfile updated = api().resource(fresh).updateStatus();
            metrics.write(ApiWrite.NODE_POWER_PROFILE_UPDATE_STATUS);
            return updated;
        });
    }

    /** Sets (or with {@code null} removes) the power-profile label; returns whether it wrote. */
    private boolean setLabel(String nodeName, String value) {
        Node node = view.node(nodeName);
        if (node == null) {
            return false;
        }
        Map<String, String> labels = node.getMetadata().getLabels();
        String current = labels == null ? null : labels.get(JoulieApi.POWER_PROFILE_LABEL);
        if (Objects.equals(current, value)) {
            return false;
        }
        String json = "{\"metadata\":{\"labels\":{\"" + JoulieApi.POWER_PROFILE_LABEL + "\":"
                + (value == null ? "null" : "\"" + value + "\"") + "}}}";
        api().nodes().resource(node).patch(PatchContext.of(PatchType.JSON_MERGE), json); // on the cached node: no GET
        metrics.write(ApiWrite.NODE_PATCH);
        return true;
    }

    private NodePowerProfile onConflictRetry(NodePowerProfile cached, java.util.function.UnaryOperator<NodePowerProfile> write) {
        NodePowerProfile target = cached;
        for (int attempt = 1; ; attempt++) {
            try {
                return write.apply(copy(target));
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt >= ATTEMPTS) {
                    throw e;
                }
                metrics.error(ErrorKind.CONFLICT);
                target = fresh(cached);
            }
        }
    }

    private NodePowerProfile fresh(NodePowerProfile cached) {
        NodePowerProfile latest = api().resources(NodePowerProfile.class).withName(cached.getMetadata().getName()).get();
        if (latest == null) {
            throw new KubernetesClientException("NodePowerProfile " + cached.getMetadata().getName() + " vanished", 404, null);
        }
        return latest;
    }

    private NodePowerProfile copy(NodePowerProfile o) {
        return client.getKubernetesSerialization().clone(o);
    }
}
