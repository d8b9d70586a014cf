package io.joulie.operator.runtime;

import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.operator.cluster.ClusterView;
import io.joulie.operator.cluster.EventReason;
import io.joulie.operator.cluster.EventSink;
import io.joulie.operator.metrics.ErrorKind;
import io.joulie.operator.metrics.PlannerMetrics;
import io.joulie.planner.ActuationAdapter;
import io.joulie.planner.ActuationAdapter.EvictionResult;
import io.joulie.planner.NodeAssignment;
import io.joulie.planner.Outcome;
import io.joulie.planner.Planner;
import io.joulie.planner.PlannerSettings;
import io.joulie.planner.Transition;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * Carries out a tick's plan through the {@link ActuationAdapter}: raises to performance first, then every other
 * node, then the nodes that left management (decision 38), up to {@link TickWriter#PARALLELISM} at once, and stops
 * starting writes once the Lease is lost. Evicts the pods of an {@code evicted} verdict first and remembers which
 * evictions were refused, so that a PodDisruptionBudget that keeps refusing yields one Warning per change, not one
 * per tick. One node's failure is logged, counted and skipped; the others go on.
 */
@ApplicationScoped
public class PlanExecutor {
    private static final Logger LOG = Logger.getLogger(PlanExecutor.class);

    private final ActuationAdapter actuation;
    private final Function<String, String> profileHolder;
    private final EventSink events;
    private final PlannerMetrics metrics;
    private final BooleanSupplier leading;
    private final int parallelism;
    /** Pods whose eviction was last refused, per node: an EvictionRefused Event is recorded when this changes. */
    private final Map<String, List<String>> refusedEvictions = new ConcurrentHashMap<>();

    /** How many node writes failed, and whether leadership was lost before all were started. */
    public record Result(int failures, boolean interrupted) {
    }

    @Inject
    public PlanExecutor(ActuationAdapter actuation, ClusterView view, EventSink events, PlannerMetrics metrics,
                        TickGate gate) {
        this(actuation, name -> holder(view.profile(name)), events, metrics, gate::leading, TickWriter.PARALLELISM);
    }

    /**
     * @param profileHolder the node a NodePowerProfile (by name) names in {@code spec.nodeName}, or null
     * @param leading       whether this replica still holds the Lease
     */
    PlanExecutor(ActuationAdapter actuation, Function<String, String> profileHolder, EventSink events,
                 PlannerMetrics metrics, BooleanSupplier leading, int parallelism) {
        this.actuation = actuation;
        this.profileHolder = profileHolder;
        this.events = events;
        this.metrics = metrics;
        this.leading = leading;
        this.parallelism = parallelism;
    }

    private static String holder(NodePowerProfile existing) {
        return existing == null || existing.getSpec() == null ? null : existing.getSpec().nodeName();
    }

    public Result execute(Planner.TickPlan plan, PlannerSettings settings) {
        List<BooleanSupplier> raises = new ArrayList<>();
        List<BooleanSupplier> others = new ArrayList<>();
        Map<String, String> owners = profileOwners(plan.transitions());
        for (Transition t : plan.transitions()) {
            String owner = owners.get(JoulieApi.nodePowerProfileName(t.node()));
            BooleanSupplier write = owner.equals(t.node()) ? () -> apply(t, plan.assignment(t, settings)) : () -> collides(t, owner);
            (t.changed() && t.to() == PowerState.ActivePerformance ? raises : others).add(write);
        }
        List<BooleanSupplier> releases = plan.released().stream().<BooleanSupplier>map(node -> () -> release(node)).toList();
        TickWriter.Result written = TickWriter.run(List.of(raises, others, releases), leading, parallelism);
        if (!written.interrupted()) {
            // nodes gone, cordoned or no longer managed: their refused-eviction memory goes too
            refusedEvictions.keySet().retainAll(plan.transitions().stream().map(Transition::node).toList());
        }
        return new Result(written.failures(), written.interrupted());
    }

    /**
     * Two node names can normalise to one NodePowerProfile name. Which node keeps the object is settled before any
     * write, so that the two do not race for it: the node the existing profile names, else the first in the plan.
     */
    private Map<String, String> profileOwners(List<Transition> transitions) {
        Map<String, String> owners = new HashMap<>();
        Set<String> planned = new HashSet<>();
        for (Transition t : transitions) {
            owners.putIfAbsent(JoulieApi.nodePowerProfileName(t.node()), t.node());
            planned.add(t.node());
        }
        owners.replaceAll((name, first) -> {
            String holder = profileHolder.apply(name);
            return holder != null && planned.contains(holder) ? holder : first;
        });
        return owners;
    }

    private boolean collides(Transition t, String owner) {
        metrics.error(ErrorKind.NODE);
        LOG.warnf("Node %s: not managed; its NodePowerProfile name %s is that of node %s (node names collide after"
                + " normalisation)", t.node(), JoulieApi.nodePowerProfileName(t.node()), owner);
        return false;
    }

    private boolean apply(Transition t, NodeAssignment assignment) {
        try {
            boolean evictionsFailed = t.outcome() == Outcome.EVICTED && !evict(t);
            if (t.outcome() != Outcome.EVICTED) {
                refusedEvictions.remove(t.node());
            }
            actuation.apply(assignment);
            if (t.outcome() != Outcome.STEADY) {
                metrics.transition(t.from(), t.changed() ? t.to() : t.requested(), t.outcome());
            }
            if (t.changed()) {
                LOG.infof("%s: %s -> %s (%s)", t.node(), t.from(), t.to(), t.reason());
                events.node(t.node(), t.outcome() == Outcome.FORCED ? EventReason.DowngradeForced : EventReason.PowerStateChanged,
                        "%s -> %s: %s".formatted(t.from(), t.to(), t.reason()));
            }
            return !evictionsFailed;
        } catch (RuntimeException e) {
            metrics.error(ErrorKind.NODE);
            LOG.warnf("Node %s: could not apply %s (%s); it keeps its last written state and is retried next tick",
                    t.node(), t.to(), e.getMessage());
            return false;
        }
    }

    /** Evicts the transition's pods; returns false when an eviction call failed (not merely refused). */
    private boolean evict(Transition t) {
        List<String> evicted = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        boolean failed = false;
        for (String pod : t.evict()) {
            LOG.debugf("Evicting %s from %s", pod, t.node());
            EvictionResult r;
            try {
                r = actuation.evict(pod);
            } catch (RuntimeException e) {
                LOG.warnf("Evicting %s from %s failed: %s", pod, t.node(), e.getMessage());
                r = EvictionResult.FAILED;
            }
            metrics.eviction(r);
            switch (r) {
                case EVICTED -> evicted.add(pod);
                case REFUSED -> refused.add(pod);
                case FAILED -> {
                    refused.add(pod);
                    failed = true;
                }
                case GONE -> { }
            }
        }
        if (!evicted.isEmpty()) {
            events.node(t.node(), EventReason.PodsEvicted, "Evicted performance-only pods to complete the downgrade: "
                    + String.join(", ", evicted));
        }
        // One Warning per change of the refused set, not one per tick while a budget keeps refusing.
        if (!refused.isEmpty() && !refused.equals(refusedEvictions.put(t.node(), List.copyOf(refused)))) {
            events.node(t.node(), EventReason.EvictionRefused, "Eviction refused or failed (retried every tick): "
                    + String.join(", ", refused));
        }
        if (refused.isEmpty()) {
            refusedEvictions.remove(t.node());
        }
        return !failed;
    }

    private boolean release(String node) {
        try {
            if (actuation.release(node)) {
                LOG.infof("%s left management: NodePowerProfile and label removed", node);
            }
            return true;
        } catch (RuntimeException e) {
            metrics.error(ErrorKind.RELEASE);
            LOG.warnf("Node %s left management but could not be released: %s", node, e.getMessage());
            return false;
        }
    }
}
