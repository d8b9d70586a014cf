package io.joulie.agent.runtime;

import io.fabric8.kubernetes.api.model.Node;
import io.joulie.agent.config.AgentMode;
import io.joulie.agent.config.AgentSettings;
import io.joulie.agent.k8s.AgentView;
import io.joulie.agent.pool.Sharding;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Which nodes this agent serves: NODE_NAME in node mode; in pool mode every watched Node whose labels match
 * POOL_NODE_SELECTOR and whose shard is POOL_SHARD_ID.
 */
final class ServedNodes {
    private final AgentSettings settings;
    private final AgentView view;

    ServedNodes(AgentSettings settings, AgentView view) {
        this.settings = settings;
        this.view = view;
    }

    Set<String> all() {
        if (settings.mode() == AgentMode.NODE) {
            return Set.of(settings.nodeName().orElseThrow());
        }
        Set<String> served = new LinkedHashSet<>();
        for (Node n : view.nodes()) {
            if (servesPoolNode(n)) {
                served.add(n.getMetadata().getName());
            }
        }
        return served;
    }

    boolean serves(String node) {
        return settings.mode() == AgentMode.NODE ? node.equals(settings.nodeName().orElse(null))
                : view.node(node).filter(this::servesPoolNode).isPresent();
    }

    private boolean servesPoolNode(Node n) {
        return settings.poolSelector().test(n.getMetadata().getLabels())
                && Sharding.shardOf(n.getMetadata().getName(), settings.poolShards()) == settings.poolShardId();
    }
}
