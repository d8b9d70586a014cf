package io.joulie.agent.k8s;

import io.fabric8.kubernetes.api.model.Node;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.TelemetryProfile;

import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;

/** What the agent knows of the cluster: its watches' caches ({@link InformerView}); in tests, plain collections. */
public interface AgentView {
    /** The NodePowerProfile for {@code node} (see {@link #preferred}), if any. */
    Optional<NodePowerProfile> profileFor(String node);

    Collection<TelemetryProfile> telemetryProfiles();

    /** A Node by name (pool mode; empty in node mode, which watches no Nodes). */
    Optional<Node> node(String name);

    Collection<Node> nodes();

    /**
     * Of the NodePowerProfiles with spec.nodeName = node, the one with the operator's name for it
     * ({@link Joulie#nodePowerProfileName}), else the first by name.
     */
    static Optional<NodePowerProfile> preferred(String node, Collection<NodePowerProfile> forNode) {
        String canonical = JoulieApi.nodePowerProfileName(node);
        return forNode.stream().min(Comparator.comparing((NodePowerProfile p) -> !p.getMetadata().getName().equals(canonical))
                .thenComparing(p -> p.getMetadata().getName()));
    }
}
