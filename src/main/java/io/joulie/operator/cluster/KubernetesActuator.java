package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.Limits;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileSpec;
import io.joulie.api.v1alpha1.NodePowerProfileStatus;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.operator.metrics.ApiWrite;
import io.joulie.operator.metrics.ErrorKind;
import io.joulie.operator.metrics.PlannerMetrics;
import io.joulie.planner.ActuationAdapter;
import io.joulie.planner.NodeAssignment;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * Writes assignments to the cluster, comparing against the informer caches first so that a steady
 * cluster costs no writes: the NodePowerProfile (created with an owner reference to its Node, spec
 * replaced, status through the status subresource) and the node's {@code joulie.io/power-profile} label
 * (JSON merge patch). Every request goes through {@link ApiWrites}, fenced by leadership: once the Lease is lost, the
 * next request throws {@link LeadershipLost} instead of being sent.
 *
 * <p>A decision holds only for the object it was made on. A 409 Conflict is retried on a fresh read only when the
 * object still asks and says what the cache showed (spec and state: only a write that changed nothing the decision
 * rests on came between); when it moved on (another replica, or this one in a write the cache has not seen yet), the
 * write is given up with {@link StaleDecision} and the node is looked at again on a fresh view. So is a create that
 * finds the object already there.
 */
@ApplicationScoped
public class KubernetesActuator implements ActuationAdapter {
    static final int ATTEMPTS = 3;

    private final ApiWrites api;
    private final ClusterView view;
    private final PlannerMetrics metrics;

    @Inject
    public KubernetesActuator(KubernetesClient client, ClusterView view, PlannerMetrics metrics, Leadership leadership) {
        this(new FencedApiWrites(new Fabric8ApiWrites(client), leadership), view, metrics);
    }

    /** The actuation over any {@link ApiWrites} (a fake cluster in the fault-injection tests), unfenced. */
    public KubernetesActuator(ApiWrites api, ClusterView view, PlannerMetrics metrics) {
        this.api = api;
        this.view = view;
        this.metrics = metrics;
    }

    /** {@code api} fenced by {@code leadership}, as the operator sends its writes. */
    public static ApiWrites fenced(ApiWrites api, Leadership leadership) {
        return new FencedApiWrites(api, leadership);
    }

    /**
     * Going up (the NodePowerProfile asks for the performance cap where it did not), the NodePowerProfile changes
     * first and the label last, so that performance pods only arrive once the performance cap is asked for (and the
     * label itself says {@code performance} only once the agent confirmed it). Otherwise, going down (draining or
     * eco), the label changes first, so that no new performance pod is admitted before the lower cap can be applied.
     */
    @Override
    public boolean apply(NodeAssignment a) {
        String name = JoulieApi.nodePowerProfileName(a.node());
        NodePowerProfile current = view.profile(name);
        if (current != null && current.getSpec() != null && !a.node().equals(current.getSpec().nodeName())) {
            throw new IllegalStateException("NodePowerProfile " + name + " belongs to node " + current.getSpec().nodeName()
                    + "; node names " + a.node() + " and " + current.getSpec().nodeName() + " collide after normalisation");
        }
        requireBasis(a, current);
        boolean wrote = false;
        if (ClusterView.ownedByEarlierNode(current, view.node(a.node()))) {
            // Left by an earlier node of the same name (garbage collection has not caught up): replace it.
            try {
                api.delete(current);
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    throw e;
                }
                throw new StaleDecision("NodePowerProfile " + name + " changed since the cache saw it; not deleted");
            }
            metrics.write(ApiWrite.NODE_POWER_PROFILE_DELETE);
            current = null;
            wrote = true;
        }
        Profile asked = current == null || current.getSpec() == null ? null : current.getSpec().profile();
        boolean labelFirst = a.state() != PowerState.ActivePerformance && !a.raisesCapFrom(asked);
        // Lowering the cap, the label is sent even when the cache already shows it: a cache behind the API server (another
        // replica labelled the node performance meanwhile) must not let the eco cap land under a performance label.
        boolean lowering = asked == Profile.PERFORMANCE && a.profile() == Profile.ECO;
        wrote |= labelFirst && setLabel(a.node(), a.labelValue(), lowering);
        wrote |= writeProfile(a, name, current);
        return (!labelFirst && setLabel(a.node(), a.labelValue(), false)) || wrote;
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
        NodePowerProfileStatus status = status(a, current.getMetadata().getGeneration(), view.performancePods(a.node()).size());
        if (current.getStatus() == null || !status.equals(current.getStatus().operatorPart())) {
            updateStatus(current, status);
            wrote = true;
        }
        return wrote;
    }

    /**
     * The operator's part of the status an assignment asks for: the state, the performance-only pods and the verdict on the
     * agent's answer ({@code status.applied} is the agent's). The forced pods are listed up to the CRD's limit
     * ({@link Limits#PODS}, sorted) and counted in full: a pod left off the list is no longer remembered as forced, and
     * the contract watchdog then rescues its node (the safe side).
     */
    static NodePowerProfileStatus status(NodeAssignment a, Long generation, int performancePods) {
        List<String> forced = a.forcedPods().stream().sorted().limit(Limits.PODS).toList();
        return new NodePowerProfileStatus(a.state(), a.since().truncatedTo(ChronoUnit.MILLIS).toString(), a.reason(),
                generation, performancePods, forced, forced.isEmpty() ? null : a.forcedPods().size(), a.cap().confirmation(),
                a.cap().message().isEmpty() ? null : a.cap().message(), null);
    }

    /** Removes the label first and the NodePowerProfile last, so that a failure half-way is retried. */
    @Override
    public boolean release(String node) {
        boolean wrote = setLabel(node, null, false);
        NodePowerProfile npp = view.profile(JoulieApi.nodePowerProfileName(node));
        if (npp != null && npp.getSpec() != null && node.equals(npp.getSpec().nodeName())) {
            api.delete(npp);
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
            boolean evicted = api.evict(pod.substring(0, slash), pod.substring(slash + 1));
            metrics.write(ApiWrite.POD_EVICT);
            return evicted ? EvictionResult.EVICTED : EvictionResult.REFUSED;
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return EvictionResult.GONE;
            }
            throw e;
        }
    }

    @PreDestroy
    void close() throws Exception {
        ApiWrites inner = api instanceof FencedApiWrites f ? f.inner() : api;
        if (inner instanceof AutoCloseable c) {
            c.close();
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
            NodePowerProfile created = api.create(npp);
            metrics.write(ApiWrite.NODE_POWER_PROFILE_CREATE);
            return created;
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
            // It exists but the cache has not seen it yet (another replica, or the watch catching up with this one's
            // earlier write): the decision was made without it, so it is made again on a view that has it.
            metrics.error(ErrorKind.CONFLICT);
            throw new StaleDecision("NodePowerProfile " + name + " exists already; the cache had not seen it");
        }
    }

    private NodePowerProfile updateSpec(NodePowerProfile cached, NodePowerProfileSpec spec) {
        return onConflictRetry(cached, fresh -> {
            fresh.setSpec(spec);
            NodePowerProfile updated = api.update(fresh);
            metrics.write(ApiWrite.NODE_POWER_PROFILE_UPDATE);
            return updated;
        });
    }

    private void updateStatus(NodePowerProfile cached, NodePowerProfileStatus status) {
        onConflictRetry(cached, fresh -> {
            fresh.setStatus(status.withObservedGeneration(fresh.getMetadata().getGeneration()));
            NodePowerProfile updated = api.updateStatus(fresh);
            metrics.write(ApiWrite.NODE_POWER_PROFILE_UPDATE_STATUS);
            return updated;
        });
    }

    /**
     * Refuses ({@link StaleDecision}) an assignment decided on a view of the node the cache no longer shows: another
     * NodePowerProfile version (another replica wrote, a recheck rescued the node while a tick was writing, the agent
     * answered) or another label. The writes that follow carry the same basis as the API server's precondition.
     */
    private void requireBasis(NodeAssignment a, NodePowerProfile current) {
        NodeAssignment.Basis basis = a.basis();
        if (basis == null) {
            return;
        }
        // a profile left by an earlier node of the same name is not this node's: the decision saw none (it is replaced)
        NodePowerProfile own = ClusterView.ownedByEarlierNode(current, view.node(a.node())) ? null : current;
        String version = own == null ? null : own.getMetadata().getResourceVersion();
        String label = label(view.node(a.node()));
        if (!Objects.equals(version, basis.resourceVersion()) || !Objects.equals(label, basis.label())) {
            throw new StaleDecision("node %s was decided on NodePowerProfile version %s, label %s; the cache now shows %s, %s"
                    .formatted(a.node(), basis.resourceVersion(), basis.label(), version, label));
        }
    }

    private static String label(Node node) {
        Map<String, String> labels = node == null ? null : node.getMetadata().getLabels();
        return labels == null ? null : labels.get(JoulieApi.POWER_PROFILE_LABEL);
    }

    /**
     * Sets (or with {@code null} removes) the power-profile label when the cache shows another value, or {@code always};
     * returns whether it wrote. The patch holds only while the label still has the value the cache shows (the API server
     * refuses it otherwise: {@link StaleDecision}).
     */
    private boolean setLabel(String nodeName, String value, boolean always) {
        Node node = view.node(nodeName);
        if (node == null) {
            return false;
        }
        String current = label(node);
        if (Objects.equals(current, value) && !always) {
            return false;
        }
        try {
            api.label(node, JoulieApi.POWER_PROFILE_LABEL, current, value);
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409 && e.getCode() != 422) {
                throw e;
            }
            metrics.error(ErrorKind.CONFLICT);
            throw new StaleDecision("the label of node %s is no longer %s on the API server (%d)".formatted(nodeName, current,
                    e.getCode()));
        }
        metrics.write(ApiWrite.NODE_PATCH);
        return true;
    }

    private NodePowerProfile onConflictRetry(NodePowerProfile cached, UnaryOperator<NodePowerProfile> write) {
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
                if (!Objects.equals(target.getSpec(), cached.getSpec()) || !Objects.equals(state(target), state(cached))) {
                    throw new StaleDecision("NodePowerProfile %s moved on since the cache saw it (%s %s, now %s %s)".formatted(
                            cached.getMetadata().getName(), profileOf(cached), state(cached), profileOf(target), state(target)));
                }
            }
        }
    }

    private static PowerState state(NodePowerProfile npp) {
        return npp.getStatus() == null ? null : npp.getStatus().state();
    }

    private static String profileOf(NodePowerProfile npp) {
        return npp.getSpec() == null || npp.getSpec().profile() == null ? "no profile" : npp.getSpec().profile().value();
    }

    /**
     * A write given up because the object moved on since the cache saw it: the decision rests on what is no longer
     * there, so the node is decided again on a fresh view (next look, after a short backoff).
     */
    public static final class StaleDecision extends KubernetesClientException {
        public StaleDecision(String message) {
            super(message, 409, null);
        }
    }

    private NodePowerProfile fresh(NodePowerProfile cached) {
        NodePowerProfile latest = api.get(cached.getMetadata().getName());
        if (latest == null) {
            throw new KubernetesClientException("NodePowerProfile " + cached.getMetadata().getName() + " vanished", 404, null);
        }
        return latest;
    }

    /** A copy to write: the cached object is never changed (spec and status are immutable records). */
    static NodePowerProfile copy(NodePowerProfile o) {
        NodePowerProfile c = new NodePowerProfile();
        c.setMetadata(new ObjectMetaBuilder(o.getMetadata()).build());
        c.setSpec(o.getSpec());
        c.setStatus(o.getStatus());
        return c;
    }
}
