package io.joulie.agent.runtime;

import io.fabric8.kubernetes.api.model.Node;
import io.joulie.agent.k8s.AgentView;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.TelemetryProfile;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** An {@link AgentView} the test fills by hand, as the watches' caches would be filled. */
final class MemoryView implements AgentView {
    final Map<String, NodePowerProfile> profiles = new TreeMap<>();
    final Map<String, TelemetryProfile> telemetry = new TreeMap<>();
    final Map<String, Node> nodes = new TreeMap<>();

    void put(NodePowerProfile npp) {
        profiles.put(npp.getMetadata().getName(), npp);
    }

    void put(TelemetryProfile tp) {
        telemetry.put(tp.getMetadata().getName(), tp);
    }

    void put(Node node) {
        nodes.put(node.getMetadata().getName(), node);
    }

    @Override
    public Optional<NodePowerProfile> profileFor(String node) {
        List<NodePowerProfile> forNode = profiles.values().stream()
                .filter(p -> p.getSpec() != null && node.equals(p.getSpec().nodeName())).toList();
        return AgentView.preferred(node, forNode);
    }

    @Override
    public Collection<TelemetryProfile> telemetryProfiles() {
        return List.copyOf(telemetry.values());
    }

    @Override
    public Optional<Node> node(String name) {
        return Optional.ofNullable(nodes.get(name));
    }

    @Override
    public Collection<Node> nodes() {
        return List.copyOf(nodes.values());
    }
}
