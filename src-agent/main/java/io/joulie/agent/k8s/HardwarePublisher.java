package io.joulie.agent.k8s;

import io.joulie.agent.inventory.Inventory;
import io.joulie.agent.metrics.AgentMetrics;
import io.joulie.agent.metrics.ErrorKind;
import io.joulie.agent.power.GpuSample;
import io.joulie.agent.routing.Route;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import org.jboss.logging.Logger;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Keeps each served node's NodeHardware up to date with its {@link Inventory}, writing only when the inventory differs
 * from what the object holds ({@code updatedAt} aside): what it holds is read once per node, then remembered. A failed
 * write is logged, counted and tried again at the next reconcile. Not thread-safe: the agent's worker calls it.
 */
public final class HardwarePublisher {
    private static final Logger LOG = Logger.getLogger(HardwarePublisher.class);

    /** Where inventories go: {@link HardwareWriter} (the NodeHardware status), or a map in tests. */
    public interface Sink {
        /** The status the node's NodeHardware holds now, {@code updatedAt} cleared; empty when there is none. */
        Optional<NodeHardwareStatus> current(String node);

        /**
         * Creates the node's NodeHardware if needed and writes its status; false when the Node is not registered yet
         * (the object is owned by it), so the write waits for a later reconcile.
         */
        boolean write(String node, NodeHardwareStatus status);
    }

    private final Inventory inventory;
    private final Sink sink;
    private final AgentMetrics metrics;
    private final Map<String, Optional<NodeHardwareStatus>> written = new HashMap<>();

    public HardwarePublisher(Inventory inventory, Sink sink, AgentMetrics metrics) {
        this.inventory = inventory;
        this.sink = sink;
        this.metrics = metrics;
    }

    /** Publishes the node's inventory if it changed. */
    public void publish(String node, Route route, List<GpuSample> boards, Optional<NodeHardwareStatus> described) {
        Optional<NodeHardwareStatus> now = inventory.of(node, route, boards, described);
        if (now.isEmpty()) {
            return;
        }
        try {
            Optional<NodeHardwareStatus> held = written.computeIfAbsent(node, sink::current);
            if (now.equals(held)) {
                return;
            }
            if (sink.write(node, now.get())) {
                written.put(node, now);
                LOG.debugf("Node %s: NodeHardware written", node);
            }
        } catch (RuntimeException e) {
            written.remove(node);
            LOG.warnf("Node %s: writing the NodeHardware failed (%s); retried next reconcile", node, e.toString());
            metrics.error(node, ErrorKind.STATUS);
        }
    }

    /** Forgets a node this agent no longer serves. */
    public void forget(String node) {
        written.remove(node);
    }
}
