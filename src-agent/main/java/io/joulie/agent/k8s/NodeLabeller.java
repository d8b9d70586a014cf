package io.joulie.agent.k8s;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.joulie.agent.metrics.AgentMetrics;
import io.joulie.agent.metrics.ErrorKind;
import org.jboss.logging.Logger;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Node mode: puts the start-up probe's capability labels on the agent's Node, only those that differ, once the
 * Node exists; {@link #label()} is called at sync and at every periodic pass until it has succeeded once.
 */
public final class NodeLabeller {
    private static final Logger LOG = Logger.getLogger(NodeLabeller.class);

    /** The Node's labels, read and merged: the API server ({@link #of(KubernetesClient)}), or a map in tests. */
    public interface Nodes {
        /** The node's labels; empty if the Node does not exist (yet). */
        Optional<Map<String, String>> labels(String node);

        /** Adds or replaces {@code labels} on the node, leaving the others. */
        void mergeLabels(String node, Map<String, String> labels);

        /** Reads the Node with a GET and writes the labels with a JSON merge patch. */
        static Nodes of(KubernetesClient client) {
            return new Nodes() {
                @Override
                public Optional<Map<String, String>> labels(String node) {
                    Node n = client.nodes().withName(node).get();
                    return n == null ? Optional.empty()
                            : Optional.of(n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels());
                }

                @Override
                public void mergeLabels(String node, Map<String, String> labels) {
                    String patch = client.getKubernetesSerialization().asJson(Map.of("metadata", Map.of("labels", labels)));
                    client.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
                }
            };
        }
    }

    private final String node;
    private final Map<String, String> wanted;
    private final Nodes nodes;
    private final AgentMetrics metrics;
    private boolean done;

    public NodeLabeller(String node, Map<String, String> wanted, Nodes nodes, AgentMetrics metrics) {
        this.node = node;
        this.wanted = Collections.unmodifiableMap(new LinkedHashMap<>(wanted));
        this.nodes = nodes;
        this.metrics = metrics;
    }

    /** Labels the Node unless that has been done; a failure is logged, counted and retried at the next call. */
    public void label() {
        if (done) {
            return;
        }
        try {
            Optional<Map<String, String>> current = nodes.labels(node);
            if (current.isEmpty()) {
                return; // not registered yet; next pass
            }
            Map<String, String> diff = new LinkedHashMap<>();
            wanted.forEach((k, v) -> {
                if (!v.equals(current.get().get(k))) {
                    diff.put(k, v);
                }
            });
            if (!diff.isEmpty()) {
                nodes.mergeLabels(node, diff);
                LOG.infof("Node %s: labelled %s", node, diff);
            }
            done = true;
        } catch (RuntimeException e) {
            LOG.warnf("Node %s: labelling failed (%s); retried next reconcile", node, e.toString());
            metrics.error(node, ErrorKind.LABELS);
        }
    }
}
