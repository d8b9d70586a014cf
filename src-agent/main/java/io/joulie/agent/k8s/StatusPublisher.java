package io.joulie.agent.k8s;

import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.Family;
import io.joulie.agent.control.Observed;
import io.joulie.agent.metrics.AgentMetrics;
import io.joulie.agent.metrics.ErrorKind;
import io.joulie.agent.routing.Routing;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileStatus;
import io.joulie.api.v1alpha1.TelemetryProfileStatus.ControlResult;
import io.joulie.api.v1alpha1.TelemetryProfileStatus.Device;
import io.joulie.api.v1alpha1.TelemetryProfileStatus.Result;
import org.jboss.logging.Logger;

import java.util.Arrays;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Reports each control outcome in the node's TelemetryProfile status ({@code status.control.cpu} or {@code .gpu}), but
 * only when it says something new: backend, result, message, the observed numbers or the devices' limits differ from
 * what the status holds (decision 13: live readings, package and GPU power, GPU energy, are left out of the
 * comparison), so a converged node costs no status writes. What the status holds is taken from the profile the first
 * time, then remembered per node and family. A failed write is logged, counted and tried again at the next outcome.
 * Not thread-safe: the agent's worker calls it.
 */
public final class StatusPublisher {
    private static final Logger LOG = Logger.getLogger(StatusPublisher.class);
    private static final List<String> LIVE = Arrays.stream(Observed.values()).filter(Observed::live).map(Observed::key).toList();

    /** Where a status goes: {@link StatusWriter} (the status subresource), or a recorder in tests. */
    public interface Sink {
        /**
         * Writes {@code status.control.<family>} of every family given, in one write, keeping the other families' status.
         *
         * @param own the node's node-scoped TelemetryProfile as the cache has it, if any
         */
        void write(String node, Optional<TelemetryProfile> own, Map<Family, ControlOutcome> outcomes);
    }

    /** The part of a status that decides whether it is written again (updatedAt and live readings left out). */
    record StatusKey(String backend, Result result, String message, Map<String, Double> observed, List<Device> devices) {
        static StatusKey of(String backend, Result result, String message, Map<String, Double> observed, List<Device> devices) {
            Map<String, Double> stable = new TreeMap<>(observed == null ? Map.of() : observed);
            LIVE.forEach(stable::remove);
            List<Device> limits = devices == null ? List.of()
                    : devices.stream().map(d -> new Device(d.index(), d.name(), d.capWatts(), null, null)).toList();
            return new StatusKey(backend, result, message, stable, limits);
        }

        static StatusKey of(ControlResult c) {
            return of(c.backend(), c.result(), c.message(), c.observed(), c.devices());
        }

        static StatusKey of(ControlOutcome out) {
            return of(out.backend().label(), out.result(), out.message(), out.observedByKey(), out.devices());
        }
    }

    private final Sink sink;
    private final AgentMetrics metrics;
    /** Per family and node, the status as last written (or found); absent until one is known. */
    private final Map<Family, Map<String, StatusKey>> written = new EnumMap<>(Family.class);

    public StatusPublisher(Sink sink, AgentMetrics metrics) {
        this.sink = sink;
        this.metrics = metrics;
        for (Family family : Family.values()) {
            written.put(family, new HashMap<>());
        }
    }

    /** Writes {@code out} as the CPU family's status. */
    public void publish(String node, Collection<TelemetryProfile> profiles, ControlOutcome out) {
        publish(node, profiles, Map.of(Family.CPU, out));
    }

    /**
     * Writes one reconcile's outcomes of {@code node}, all in one write, unless the node's profile already says the same
     * for each of them (one write: a second write from the cached profile could put back what the first replaced).
     */
    public void publish(String node, Collection<TelemetryProfile> profiles, Map<Family, ControlOutcome> outcomes) {
        if (outcomes.isEmpty()) {
            return;
        }
        Optional<TelemetryProfile> own = Routing.nodeScoped(profiles, node);
        Map<Family, StatusKey> keys = new EnumMap<>(Family.class);
        boolean changed = own.isEmpty();
        for (Map.Entry<Family, ControlOutcome> e : outcomes.entrySet()) {
            Family family = e.getKey();
            Map<String, StatusKey> known = written.get(family);
            if (!known.containsKey(node)) {
                own.map(TelemetryProfile::getStatus).map(TelemetryProfileStatus::control).map(c -> switch (family) {
                    case CPU -> c.cpu();
                    case GPU -> c.gpu();
                }).ifPresent(c -> known.put(node, StatusKey.of(c)));
            }
            StatusKey key = StatusKey.of(e.getValue());
            keys.put(family, key);
            changed |= !key.equals(known.get(node));
        }
        if (!changed) {
            return;
        }
        try {
            sink.write(node, own, outcomes);
            keys.forEach((family, key) -> written.get(family).put(node, key));
        } catch (RuntimeException e) {
            LOG.warnf("Node %s: writing the TelemetryProfile status failed (%s); retried next reconcile", node, e.toString());
            metrics.error(node, ErrorKind.STATUS);
        }
    }

    /** Forgets what was written for a node this agent no longer serves. */
    public void forget(String node) {
        written.values().forEach(m -> m.remove(node));
    }
}
