package io.joulie.operator.runtime;

import io.joulie.api.text.Durations;
import io.joulie.api.v1alpha1.CapConfirmation;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.operator.cluster.ClusterView;
import io.joulie.operator.cluster.EventReason;
import io.joulie.operator.cluster.EventSink;
import io.joulie.operator.metrics.PlannerMetrics;
import io.joulie.operator.metrics.PlannerMetrics.CapWait;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.ManagedNode;
import io.joulie.planner.Outcome;
import io.joulie.planner.Planner;
import io.joulie.planner.PlannerSettings;
import io.joulie.planner.Transition;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Keeps the books of the performance contract across ticks and rechecks: each performance-only pod found under the
 * eco cap (counted once, a Warning on its node, its name in the log only) until it is no longer there (its time under
 * the eco cap recorded), each node whose rescue is held (a Warning once per episode, decision 156), and
 * each node whose {@code performance} label waits for its agent (a Warning once it has waited longer than
 * CAP_CONFIRMATION_TIMEOUT). A violation ends when the pod is gone or its node is off the eco cap with the performance
 * cap confirmed by the agent (or no agent reports for it). Memory only: after a restart, a pod still under the eco cap is
 * found again at the first tick.
 */
@ApplicationScoped
public class ContractLedger {
    private static final Logger LOG = Logger.getLogger(ContractLedger.class);

    /** A pod under the eco cap: its node and since when. */
    private record Violation(String node, Instant since) {
    }

    /** A node whose label waits for the agent: since when, whether a Warning went out, and why it waits. */
    private record Waiting(Instant since, boolean warned, String message) {
    }

    private final PlannerMetrics metrics;
    private final EventSink events;
    private final Clock clock;
    private final Function<String, Instant> podSeen;
    private final Map<String, Violation> violations = new HashMap<>();
    private final Map<String, Waiting> waiting = new HashMap<>();
    private final Map<String, CapWait> caps = new HashMap<>();
    /** Nodes whose rescue is held (a Warning went out for the episode). */
    private final Set<String> held = new java.util.HashSet<>();

    @Inject
    public ContractLedger(PlannerMetrics metrics, EventSink events, Clock clock, ClusterView view) {
        this(metrics, events, clock, view::performancePodSeen);
    }

    /**
     * @param podSeen when the watch first showed a performance-only pod ({@code namespace/name}) on its node, or null
     */
    ContractLedger(PlannerMetrics metrics, EventSink events, Clock clock, Function<String, Instant> podSeen) {
        this.metrics = metrics;
        this.events = events;
        this.clock = clock;
        this.podSeen = podSeen;
    }

    /**
     * What a tick ({@code whole}: every managed node) or a recheck (only the nodes it looked at) found and decided.
     *
     * @return the nodes whose label waits for the agent, with the moment their wait becomes overdue (to look again then)
     */
    public synchronized Map<String, Instant> observe(ClusterContext ctx, Planner.TickPlan plan, PlannerSettings settings,
                                                     boolean whole) {
        Instant now = clock.instant();
        Map<String, Transition> verdicts = new HashMap<>();
        plan.transitions().forEach(t -> verdicts.put(t.node(), t));
        Set<String> looked = new TreeSet<>();
        for (ManagedNode n : ctx.nodes()) {
            looked.add(n.name());
            violations(n, verdicts.get(n.name()), now);
            held(n, verdicts.get(n.name()));
            caps(n, verdicts.get(n.name()), now, settings.capConfirmationTimeout());
        }
        if (whole) {
            // a node that left management (or the cluster): nothing runs under Joulie's eco cap there any more
            violations.entrySet().removeIf(e -> !looked.contains(e.getValue().node()) && record(e.getKey(), e.getValue(), now));
            waiting.keySet().retainAll(looked);
            caps.keySet().retainAll(looked);
            held.retainAll(looked);
        }
        Map<CapWait, Long> counts = new EnumMap<>(CapWait.class);
        caps.values().forEach(w -> counts.merge(w, 1L, Long::sum));
        metrics.unconfirmedCaps(counts);
        Map<String, Instant> due = new HashMap<>();
        waiting.forEach((node, w) -> {
            if (!w.warned()) {
                due.put(node, w.since().plus(settings.capConfirmationTimeout()));
            }
        });
        return due;
    }

    /** The nodes whose label has waited for the agent longer than the bound, each with why, sorted by name. */
    public synchronized List<String> overdue() {
        List<String> out = new ArrayList<>();
        new TreeSet<>(waiting.keySet()).forEach(node -> {
            Waiting w = waiting.get(node);
            if (w.warned()) {
                out.add(node + " (" + w.message() + ")");
            }
        });
        return out;
    }

    private void violations(ManagedNode n, Transition verdict, Instant now) {
        // a forced commit written half-way (its eco cap, not yet the record of its pods) is escalation force at work
        List<String> violators = verdict != null && verdict.outcome() == Outcome.FORCED ? List.of() : n.violators();
        for (String pod : violators) {
            if (violations.containsKey(pod)) {
                continue;
            }
            Instant seen = podSeen.apply(pod);
            Instant since = seen == null || seen.isBefore(n.since()) ? n.since() : seen;
            violations.put(pod, new Violation(n.name(), since));
            metrics.contractViolation();
            String m = "runs under the eco cap of node %s (seen there %s); the node goes back to the performance cap at once"
                    .formatted(n.name(), since);
            // the pod's name goes to this log only: Events on cluster-scoped objects would show every namespace's pods
            LOG.warn("performance-only pod " + pod + " " + m);
            events.node(n.name(), EventReason.ContractViolation, "a performance-only pod " + m);
        }
        // a violation on this node ends when its pod is gone, or the node has the performance cap back: asked for and
        // confirmed by its agent (or no agent reports for it)
        boolean capBack = verdict != null && verdict.to().profile() == Profile.PERFORMANCE && verdict.cap().admitsPerformance();
        violations.entrySet().removeIf(e -> e.getValue().node().equals(n.name())
                && (!n.performancePods().contains(e.getKey()) || capBack) && record(e.getKey(), e.getValue(), now));
    }

    /** A Warning when a node's rescue is first held (once per episode: until a verdict no longer holds it). */
    private void held(ManagedNode n, Transition verdict) {
        if (verdict == null || verdict.outcome() != Outcome.HELD) {
            held.remove(n.name());
            return;
        }
        if (held.add(n.name())) {
            LOG.warnf("Node %s: %s", n.name(), verdict.reason());
            events.node(n.name(), EventReason.RescueHeld, verdict.reason());
        }
    }

    /** Records the end of a violation; returns true. */
    private boolean record(String pod, Violation v, Instant now) {
        Duration d = Duration.between(v.since(), now);
        metrics.violationEnded(d.isNegative() ? Duration.ZERO : d);
        LOG.infof("Performance-only pod %s is no longer under the eco cap of node %s (%s)", pod, v.node(), Durations.format(d));
        return true;
    }

    private void caps(ManagedNode n, Transition verdict, Instant now, Duration bound) {
        if (verdict == null || verdict.to() != PowerState.ActivePerformance) {
            waiting.remove(n.name());
            caps.remove(n.name());
            return;
        }
        if (!verdict.awaitsAgent()) {
            waiting.remove(n.name());
            if (verdict.cap().confirmation() == CapConfirmation.Unreported) {
                caps.put(n.name(), CapWait.UNREPORTED);
            } else {
                caps.remove(n.name());
            }
            return;
        }
        Waiting w = waiting.get(n.name());
        if (w == null) {
            w = new Waiting(verdict.since(), false, verdict.cap().message());
        }
        if (!w.warned() && !now.isBefore(w.since().plus(bound))) {
            String m = "the agent of node %s has not confirmed the performance cap for %s (longer than %s, "
                    .formatted(n.name(), Durations.format(Duration.between(w.since(), now)), Durations.format(bound))
                    + "CAP_CONFIRMATION_TIMEOUT); its performance label waits: " + verdict.cap().message();
            LOG.warn(m);
            events.node(n.name(), EventReason.CapUnconfirmed, m);
            w = new Waiting(w.since(), true, verdict.cap().message());
        }
        waiting.put(n.name(), new Waiting(w.since(), w.warned(), verdict.cap().message()));
        caps.put(n.name(), w.warned() ? CapWait.OVERDUE : CapWait.WAITING);
    }
}
