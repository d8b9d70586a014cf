package io.joulie.agent.k8s;

import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.Observed;
import io.joulie.agent.metrics.AgentMetrics;
import io.joulie.agent.metrics.ErrorKind;
import io.joulie.agent.routing.Routing;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileStatus;
import io.joulie.api.v1alpha1.TelemetryProfileStatus.Result;
import org.jboss.logging.Logger;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Reports each control outcome in the node's TelemetryProfile status, but only when it says something new:
 * backend, result, message or the observed numbers other than {@code packagePowerWatts} differ from what the
 * status holds (decision 13), so a converged node costs no status writes. What the status holds is taken from the
 * profile the first time, then remembered per node. A failed write is logged, counted and tried again at the
 * next outcome. Not thread-safe: the agent's worker calls it.
 */
public final class StatusPublisher {
    private static final Logger LOG = Logger.getLogger(StatusPublisher.class);

    /** Where a status goes: {@link StatusWriter} (the status subresource), or a recorder in tests. */
    public interface Sink {
        /**
         * @param own the node's node-scoped TelemetryProfile as the cache has it, if any
         */
        void write(String node, Optional<TelemetryProfile> own, ControlOutcome outcome);

        /** This sink, then {@code next} once this one succeeded (e.g. the status, then an Event on the Node). */
        default Sink andThen(Sink next) {
            return (node, own, outcome) -> {
                write(node, own, outcome);
                next.write(node, own, outcome);
            };
        }
    }

    /** The part of a status that decides whether it is written again (updatedAt and packagePowerWatts left out). */
    record StatusKey(String backend, Result result, String message, Map<String, Double> observed) {
        static StatusKey of(String backend, Result result, String message, Map<String, Double> observed) {
            Map<String, Double> stable = new TreeMap<>(observed == null ? Map.of() : observed);
            stable.remove(Observed.PACKAGE_POWER_WATTS.key());
            return new StatusKey(backend, result, message, stable);
        }

        static StatusKey of(ControlOutcome out) {
            return of(out.backend().label(), out.result(), out.message(), out.observedByKey());
        }
    }

    private final Sink sink;
    private final AgentMetrics metrics;
    /** Per node, the status as last written (or found); absent until one is known. */
    private final Map<String, StatusKey> written = new HashMap<>();

    public StatusPublisher(Sink sink, AgentMetrics metrics) {
        this.sink = sink;
        this.metrics = metrics;
    }

    /** Writes {@code out} for {@code node} unless the node's profile already says the same. */
    public void publish(String node, Collection<TelemetryProfile> profiles, ControlOutcome out) {
        Optional<TelemetryProfile> own = Routing.nodeScoped(profiles, node);
        if (!written.containsKey(node)) {
            own.map(TelemetryProfile::getStatus).map(TelemetryProfileStatus::control).map(TelemetryProfileStatus.ControlStatus::cpu)
                    .ifPresent(c -> written.put(node, StatusKey.of(c.backend(), c.result(), c.message(), c.observed())));
        }
        StatusKey key = StatusKey.of(out);
        if (key.equals(written.get(node)) && own.isPresent()) {
            return;
        }
        try {
            sink.write(node, own, out);
            written.put(node, key);
        } catch (RuntimeException e) {
            LOG.warnf("Node %s: writing the TelemetryProfile status failed (%s); retried next reconcile", node, e.toString());
            metrics.error(node, ErrorKind.STATUS);
        }
    }

    /** Forgets what was written for a node this agent no longer serves. */
    public void forget(String node) {
        written.remove(node);
    }
}
