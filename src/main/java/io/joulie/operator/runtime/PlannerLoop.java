package io.joulie.operator.runtime;

import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.operator.cluster.ClusterView;
import io.joulie.operator.cluster.EventRecorder;
import io.joulie.api.v1alpha1.JoulieInstallation;
import io.joulie.api.v1alpha1.JoulieStatus;
import io.joulie.operator.config.EffectivePolicy;
import io.joulie.operator.config.OperatorSettings;
import io.joulie.operator.config.PolicyOverlay;
import io.joulie.planner.PlannerSettings;
import io.joulie.planner.ActuationAdapter;
import io.joulie.planner.ActuationAdapter.EvictionResult;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.ContextProvider;
import io.joulie.api.text.Durations;
import io.joulie.planner.NodeAssignment;
import io.joulie.planner.Outcome;
import io.joulie.planner.Planner;
import io.joulie.planner.Transition;
import io.joulie.operator.telemetry.TelemetrySource;
import io.micrometer.core.instrument.Timer;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.Scheduler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * The per-interval tick: only on the leader and only once the watches have synced, it takes a snapshot,
 * plans, and writes what changed. One node's failure is logged, counted and skipped; the others go on.
 */
@ApplicationScoped
public class PlannerLoop {
    private static final Logger LOG = Logger.getLogger(PlannerLoop.class);

    private final Scheduler scheduler;
    private final ContextProvider context;
    private final ActuationAdapter actuation;
    private final ClusterView view;
    private final OperatorSettings settings;
    private final PlannerMetrics metrics;
    private final EventRecorder events;
    private final LeaderElection leader;
    private final Clock clock;
    private final EffectivePolicy policy;
    private final PlannerStatus status;
    private final TelemetrySource telemetry;
    private final RuleMetrics rules;
    private volatile Planner planner;
    private Duration scheduledInterval;
    private List<String> reportedPolicyErrors = List.of();
    private final AtomicReference<Instant> lastCompleted = new AtomicReference<>();
    private boolean announcedFallback;
    /** Pods whose eviction was last refused, per node: an EvictionRefused Event is recorded when this changes. */
    private final Map<String, List<String>> refusedEvictions = new java.util.concurrent.ConcurrentHashMap<>();

    public PlannerLoop(Scheduler scheduler, ContextProvider context, ActuationAdapter actuation, ClusterView view,
                       OperatorSettings settings, PlannerMetrics metrics, EventRecorder events, LeaderElection leader,
                       Clock clock, EffectivePolicy policy, PlannerStatus status, TelemetrySource telemetry,
                       RuleMetrics rules) {
        this.scheduler = scheduler;
        this.context = context;
        this.actuation = actuation;
        this.view = view;
        this.settings = settings;
        this.metrics = metrics;
        this.events = events;
        this.leader = leader;
        this.clock = clock;
        this.policy = policy;
        this.status = status;
        this.telemetry = telemetry;
        this.rules = rules;
        this.planner = new Planner(settings.planner());
    }

    void schedule(@Observes StartupEvent ev) {
        schedule(planner.settings().reconcileInterval());
        LOG.infof("Planning every %s with %s", Durations.format(scheduledInterval), planner.policy().name());
    }

    private void schedule(Duration interval) {
        if (scheduledInterval != null) {
            scheduler.unscheduleJob(JOB);
        }
        scheduledInterval = interval;
        scheduler.newJob(JOB)
                .setInterval(interval.toString())
                .setConcurrentExecution(Scheduled.ConcurrentExecution.SKIP)
                .setTask(execution -> tick())
                .schedule();
    }

    private static final String JOB = "joulie-planner";

    /**
     * Brings the planner in line with the effective policy (spec.policy of the Joulie resource over the
     * environment defaults): a changed setting replaces the planner before the tick plans; a changed
     * interval reschedules the tick. An invalid spec.policy keeps the settings in force.
     */
    private void applyEffectivePolicy() {
        JoulieInstallation active = view.installation();
        EffectivePolicy.Resolution r = policy.resolve(active);
        if (!r.errors().equals(reportedPolicyErrors)) {
            reportedPolicyErrors = r.errors();
            if (!r.errors().isEmpty()) {
                LOG.warnf("spec.policy of the Joulie resource is invalid; planning keeps the settings in force: %s",
                        String.join("; ", r.errors()));
            }
        }
        telemetry.configure(r.rules().telemetry());
        if (r.settings().equals(planner.settings()) && r.rules().rules().equals(planner.rules())) {
            return;
        }
        Planner previous = planner;
        // The rules' state (hysteresis, a held budget) carries over to the new planner.
        planner = new Planner(r.settings(), r.rules().rules()).continuing(previous);
        LOG.infof("Planner settings changed: %s", r.settings());
        String message = "planning with %s (was %s)".formatted(PolicyOverlay.describe(r.settings()),
                PolicyOverlay.describe(previous.settings()))
                + (r.rules().rules().equals(previous.rules()) ? "" : "; rules: " + describe(r.rules().rules()));
        if (active != null) {
            events.normal(active, "PolicyChanged", message);
        } else {
            events.operatorNormal("PolicyChanged", message);
        }
        if (!r.settings().reconcileInterval().equals(scheduledInterval)) {
            schedule(r.settings().reconcileInterval());
            LOG.infof("Planning every %s", Durations.format(scheduledInterval));
        }
    }

    private static String describe(io.joulie.planner.PolicyRules r) {
        if (r.isEmpty()) {
            return "none";
        }
        List<String> parts = new ArrayList<>();
        if (!r.schedules().isEmpty()) {
            parts.add(r.schedules().size() + " schedule window(s)");
        }
        r.budgetWatts().ifPresent(w -> parts.add("power budget " + Math.round(w) + " W"));
        if (r.hotspots() != null) {
            parts.add("hotspots above " + r.hotspots().thresholdCelsius() + " °C");
        }
        return String.join(", ", parts);
    }

    /** The settings the planner currently plans with. */
    public PlannerSettings plannerSettings() {
        return planner.settings();
    }

    /** Runs one tick; returns whether it planned (leader, synced) and completed. */
    public synchronized boolean tick() {
        if (!leader.isLeader()) {
            metrics.tick("standby");
            return false;
        }
        List<String> unsynced = view.unsynced();
        if (!unsynced.isEmpty()) {
            metrics.tick("unsynced");
            LOG.infof("Watches have not synced yet (%s); not planning on an incomplete view", String.join(", ", unsynced));
            return false;
        }
        announceFallback();
        applyEffectivePolicy();
        Planner planner = this.planner;
        Timer.Sample sample = Timer.start();
        int failures = 0;
        try {
            ClusterContext ctx = context.snapshot();
            Planner.TickPlan plan = planner.plan(ctx);
            LOG.debugf("Tick: %d managed nodes, %s", ctx.nodes().size(), plan.plan().summary());
            // raises to performance first, then everything else, then the nodes that left management
            List<BooleanSupplier> raises = new ArrayList<>();
            List<BooleanSupplier> others = new ArrayList<>();
            Map<String, String> profileOwner = profileOwners(plan.transitions());
            for (Transition t : plan.transitions()) {
                String owner = profileOwner.get(Joulie.nodePowerProfileName(t.node()));
                BooleanSupplier write = owner.equals(t.node()) ? () -> execute(t, planner.settings(), plan.plan().policyName())
                        : () -> collides(t, owner);
                (t.changed() && t.to() == PowerState.ActivePerformance ? raises : others).add(write);
            }
            List<BooleanSupplier> releases = plan.released().stream().<BooleanSupplier>map(node -> () -> release(node)).toList();
            TickWriter.Result written = TickWriter.run(List.of(raises, others, releases), leader::isLeader, TickWriter.PARALLELISM);
            failures = written.failures();
            if (written.interrupted()) {
                LOG.info("Leadership lost during the tick; leaving the rest to the new leader");
                metrics.tick("interrupted");
                return false;
            }
            record(ctx, plan);
            // nodes gone, cordoned or no longer managed: their refused-eviction memory goes too
            refusedEvictions.keySet().retainAll(plan.transitions().stream().map(Transition::node).toList());
        } catch (RuntimeException e) {
            metrics.error("tick");
            metrics.tick("error");
            LOG.error("Planning tick failed", e);
            return false;
        } finally {
            sample.stop(metrics.tickTimer());
        }
        Instant now = clock.instant();
        lastCompleted.set(now);
        metrics.completedAt(now.getEpochSecond());
        metrics.tick(failures == 0 ? "ok" : "partial");
        return true;
    }

    /**
     * Two node names can normalise to one NodePowerProfile name. Which node keeps the object is settled before any
     * write, so that the two do not race for it: the node the existing profile names, else the first in the plan.
     */
    private Map<String, String> profileOwners(List<Transition> transitions) {
        Map<String, String> owners = new java.util.HashMap<>();
        java.util.Set<String> planned = new java.util.HashSet<>();
        for (Transition t : transitions) {
            owners.putIfAbsent(Joulie.nodePowerProfileName(t.node()), t.node());
            planned.add(t.node());
        }
        owners.replaceAll((name, first) -> {
            NodePowerProfile existing = view.profile(name);
            String holder = existing == null || existing.getSpec() == null ? null : existing.getSpec().nodeName();
            return holder != null && planned.contains(holder) ? holder : first;
        });
        return owners;
    }

    private boolean collides(Transition t, String owner) {
        metrics.error("node");
        LOG.warnf("Node %s: not managed; its NodePowerProfile name %s is that of node %s (node names collide after"
                + " normalisation)", t.node(), Joulie.nodePowerProfileName(t.node()), owner);
        return false;
    }

    private boolean execute(Transition t, PlannerSettings plannerSettings, String policyName) {
        try {
            boolean evictionsFailed = t.outcome() == Outcome.EVICTED && !evict(t);
            if (t.outcome() != Outcome.EVICTED) {
                refusedEvictions.remove(t.node());
            }
            actuation.apply(NodeAssignment.of(t, plannerSettings, policyName));
            if (t.outcome() != Outcome.STEADY) {
                metrics.transition(t.from(), t.changed() ? t.to() : t.requested(), t.outcome());
            }
            if (t.changed()) {
                LOG.infof("%s: %s -> %s (%s)", t.node(), t.from(), t.to(), t.reason());
                String message = "%s -> %s: %s".formatted(t.from(), t.to(), t.reason());
                if (t.outcome() == Outcome.FORCED) {
                    events.warning(profileRef(t.node()), "DowngradeForced", message);
                } else {
                    events.normal(profileRef(t.node()), "PowerStateChanged", message);
                }
            }
            return !evictionsFailed;
        } catch (RuntimeException e) {
            metrics.error("node");
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
            metrics.eviction(r.name().toLowerCase(java.util.Locale.ROOT));
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
            events.normal(profileRef(t.node()), "PodsEvicted", "Evicted performance-only pods to complete the downgrade: "
                    + String.join(", ", evicted));
        }
        // One Warning per change of the refused set, not one per tick while a budget keeps refusing.
        if (!refused.isEmpty() && !refused.equals(refusedEvictions.put(t.node(), List.copyOf(refused)))) {
            events.warning(profileRef(t.node()), "EvictionRefused", "Eviction refused or failed (retried every tick): "
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
            metrics.error("release");
            LOG.warnf("Node %s left management but could not be released: %s", node, e.getMessage());
            return false;
        }
    }

    private void record(ClusterContext ctx, Planner.TickPlan plan) {
        Map<PowerState, Long> counts = new EnumMap<>(PowerState.class);
        for (var n : ctx.nodes()) {
            counts.merge(n.state(), 1L, Long::sum);
        }
        for (Transition t : plan.transitions()) {
            if (t.changed()) {
                counts.merge(t.from(), -1L, Long::sum);
                counts.merge(t.to(), 1L, Long::sum);
            }
        }
        metrics.nodes(ctx.nodes().size(), counts, ctx.excluded().size(), oldestDrainSeconds(ctx, plan));
        metrics.decided(plan.transitions().size(), plan.reassignments(), plan.plan().performanceNodes());
        status.publish(new PlannerStatus.Report(
                new JoulieStatus.Nodes(ctx.nodes().size(), count(counts, PowerState.ActivePerformance),
                        count(counts, PowerState.DrainingPerformance), count(counts, PowerState.ActiveEco),
                        ctx.excluded().size()),
                ctx.excluded().stream().map(e -> new JoulieStatus.ExcludedNode(e.node(), e.reason(), e.message())).toList(),
                RuleMetrics.problems(plan.rules())));
        if (rules.record(plan.rules())) {
            String m = RuleMetrics.budgetMessage(plan.rules().budget().orElseThrow());
            LOG.warn(m);
            JoulieInstallation active = view.installation();
            if (active != null) {
                events.warning(active, PlannerStatus.POWER_BUDGET_UNMET, m);
            } else {
                events.operatorWarning(PlannerStatus.POWER_BUDGET_UNMET, m);
            }
        }
    }

    /** Age of the longest drain still going on after this tick's transitions; 0 when no node is draining. */
    private static long oldestDrainSeconds(ClusterContext ctx, Planner.TickPlan plan) {
        Map<String, Transition> byNode = new java.util.HashMap<>();
        plan.transitions().forEach(t -> byNode.put(t.node(), t));
        long oldest = 0;
        for (var n : ctx.nodes()) {
            Transition t = byNode.get(n.name());
            PowerState after = t != null && t.changed() ? t.to() : n.state();
            if (after == PowerState.DrainingPerformance && n.state() == PowerState.DrainingPerformance) {
                oldest = Math.max(oldest, Duration.between(n.since(), ctx.now()).toSeconds());
            }
        }
        return oldest;
    }

    private static int count(Map<PowerState, Long> counts, PowerState state) {
        return counts.getOrDefault(state, 0L).intValue();
    }

    private NodePowerProfile profileRef(String node) {
        NodePowerProfile cached = view.profile(Joulie.nodePowerProfileName(node));
        if (cached != null) {
            return cached;
        }
        NodePowerProfile ref = new NodePowerProfile();
        ref.getMetadata().setName(Joulie.nodePowerProfileName(node));
        return ref;
    }

    private void announceFallback() {
        if (!announcedFallback) {
            announcedFallback = true;
            settings.unknownPolicy().ifPresent(p -> events.operatorWarning("UnknownPolicy",
                    "POLICY_TYPE '" + p + "' is not a known policy; planning with static_partition"));
        }
    }

    /** When the last tick completed, if one has. */
    public Instant lastCompleted() {
        return lastCompleted.get();
    }
}
