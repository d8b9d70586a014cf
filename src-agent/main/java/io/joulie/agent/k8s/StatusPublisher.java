package io.joulie.agent.k8s;

import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.Family;
import io.joulie.agent.control.Observed;
import io.joulie.agent.metrics.AgentMetrics;
import io.joulie.agent.metrics.ErrorKind;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileStatus;
import io.joulie.api.v1alpha1.NodePowerProfileStatus.Applied;
import org.jboss.logging.Logger;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Answers a node's NodePowerProfile in its {@code status.applied}: the generation acted on and, per control family, the
 * result, the backend, the limits in force and the message. Written only when the answer says something new (the time
 * of writing left out of the comparison), so a converged node costs no writes. What the status holds is taken from the
 * profile the first time, then remembered per node. A family without an outcome this reconcile keeps its last answer. A
 * failed write is logged, counted and tried again at the next outcome. Not thread-safe: the agent's worker calls it.
 */
public final class StatusPublisher {
    private static final Logger LOG = Logger.getLogger(StatusPublisher.class);

    /** Where an answer goes: {@link StatusWriter} (server-side apply of {@code status.applied}), or a recorder in tests. */
    public interface Sink {
        /** Writes {@code applied}, stamped with the time of writing, as the whole of {@code status.applied} of {@code npp}. */
        void write(NodePowerProfile npp, Applied applied);
    }

    /** Told, once the answer was written, of the families whose outcome changed (e.g. an Event on the Node). */
    public interface Changes {
        void changed(String node, Map<Family, ControlOutcome> changed);
    }

    private final Sink sink;
    private final Changes changes;
    private final AgentMetrics metrics;
    /**
     * Per node, the answer as last written (or found), without its time, and the UID of the profile it answers: a profile
     * deleted and made again under the same name starts at generation 1 again, and its own status is what counts then.
     */
    private final Map<String, Written> written = new HashMap<>();

    private record Written(String uid, Applied applied) {
    }

    public StatusPublisher(Sink sink, AgentMetrics metrics) {
        this(sink, (node, changed) -> { }, metrics);
    }

    public StatusPublisher(Sink sink, Changes changes, AgentMetrics metrics) {
        this.sink = sink;
        this.changes = changes;
        this.metrics = metrics;
    }

    /** Answers {@code npp} with the CPU family's outcome alone. */
    public void publish(String node, Optional<NodePowerProfile> npp, ControlOutcome out) {
        publish(node, npp, Map.of(Family.CPU, out));
    }

    /**
     * Answers one reconcile's outcomes of {@code node} in one write, unless the profile's answer already says the same. Without
     * a profile there is nothing to answer: the changed families are still told (an Event on the Node).
     */
    public void publish(String node, Optional<NodePowerProfile> npp, Map<Family, ControlOutcome> outcomes) {
        if (outcomes.isEmpty()) {
            return;
        }
        String uid = npp.map(p -> p.getMetadata().getUid()).orElse(null);
        Written memo = written.get(node);
        if (memo == null || (uid != null && !uid.equals(memo.uid()))) {
            memo = new Written(uid, npp.map(NodePowerProfile::applied).map(StatusPublisher::timeless).orElse(null));
            written.put(node, memo);
        }
        Applied was = memo.applied();
        Applied next = answer(npp.map(p -> p.getMetadata().getGeneration()).orElse(null), was, outcomes);
        Map<Family, ControlOutcome> changed = new EnumMap<>(Family.class);
        outcomes.forEach((family, out) -> {
            if (was == null || !Objects.equals(part(was, family), part(next, family))) {
                changed.put(family, out);
            }
        });
        if (next.equals(was)) {
            return;
        }
        if (npp.isPresent()) {
            try {
                sink.write(npp.get(), next);
            } catch (RuntimeException e) {
                LOG.warnf("Node %s: writing status.applied of NodePowerProfile %s failed (%s); retried next reconcile", node,
                        npp.get().getMetadata().getName(), e.toString());
                metrics.error(node, ErrorKind.STATUS);
                return;
            }
        }
        written.put(node, new Written(uid != null ? uid : memo.uid(), next));
        if (!changed.isEmpty()) {
            changes.changed(node, changed);
        }
    }

    /** Forgets what was written for a node this agent no longer serves. */
    public void forget(String node) {
        written.remove(node);
    }

    /** The answer to {@code generation}: the outcomes' families anew, the others as {@code was} answered them. */
    static Applied answer(Long generation, Applied was, Map<Family, ControlOutcome> outcomes) {
        ControlOutcome cpu = outcomes.get(Family.CPU);
        ControlOutcome gpu = outcomes.get(Family.GPU);
        return new Applied(generation, cpu != null ? cpu(cpu) : was == null ? null : was.cpu(),
                gpu != null ? gpu(gpu) : was == null ? null : was.gpu(), null);
    }

    static NodePowerProfileStatus.Cpu cpu(ControlOutcome out) {
        return new NodePowerProfileStatus.Cpu(out.result(), out.backend().label(), out.observed().get(Observed.CAP_WATTS),
                out.observed().get(Observed.THROTTLE_PCT), out.devices(), emptyToNull(out.message()));
    }

    static NodePowerProfileStatus.Gpu gpu(ControlOutcome out) {
        return new NodePowerProfileStatus.Gpu(out.result(), out.backend().label(), out.devices(), emptyToNull(out.message()));
    }

    private static Object part(Applied applied, Family family) {
        return switch (family) {
            case CPU -> applied.cpu();
            case GPU -> applied.gpu();
        };
    }

    private static Applied timeless(Applied applied) {
        return new Applied(applied.generation(), applied.cpu(), applied.gpu(), null);
    }

    private static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }
}
