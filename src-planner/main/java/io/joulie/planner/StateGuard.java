package io.joulie.planner;

import io.joulie.api.text.Durations;
import io.joulie.api.v1alpha1.CapConfirmation;
import io.joulie.api.v1alpha1.NodePowerProfileStatus;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The performance contract, node by node: a performance-only pod never runs under the eco cap.
 *
 * <ul>
 *   <li><b>Down</b>: a node planned eco goes DrainingPerformance first (keeps the performance cap, admits no new
 *   performance pods) and reaches ActiveEco only once it has shown no performance-only pod for the settle time: a Pod
 *   the scheduler bound on the strength of the old label is seen before the cap drops. Or when the escalation after the
 *   downgrade timeout says so.</li>
 *   <li><b>Up</b>: a move to performance is allowed at once; the cap goes up first, the {@code performance} label only
 *   once the node's agent reports the performance cap applied (or no agent reports for the node).</li>
 *   <li><b>Watchdog</b>: an ActiveEco node with a performance-only pod (bound with {@code spec.nodeName}, relabelled by
 *   hand, bound in a race) goes back to the performance cap at once: DrainingPerformance while the plan wants eco.</li>
 * </ul>
 *
 * <p>Times in a state are measured from {@link ManagedNode#stateSinceHere()}: never from before this replica saw the
 * node in it. Reasons count pods and never name them: they end up in cluster-scoped objects (decision 158).
 */
public final class StateGuard {
    private final PlannerSettings settings;

    public StateGuard(PlannerSettings settings) {
        this.settings = settings;
    }

    /**
     * Checks the transition of {@code node} to {@code requested} (ActivePerformance or ActiveEco) at
     * {@code now}.
     */
    public Transition check(ManagedNode node, PowerState requested, String policyName, Instant now) {
        PowerState from = node.state();
        if (requested != PowerState.ActiveEco) {
            String reason = "selected for performance by " + policyName;
            // a raise that takes performance-only pods off the eco cap is a rescue: urgent, whatever the budget
            return from == PowerState.ActivePerformance
                    ? stay(node, requested, Outcome.STEADY, reason, List.of())
                    : move(node, requested, PowerState.ActivePerformance, now,
                            node.violators().isEmpty() ? Outcome.COMPLETED : Outcome.RESCUED, reason, List.of());
        }
        String ecoReason = "selected for eco by " + policyName;
        if (from == PowerState.ActiveEco) {
            List<String> violators = node.violators();
            if (!violators.isEmpty()) {
                return move(node, requested, PowerState.DrainingPerformance, now, Outcome.RESCUED, describePods(violators)
                        + " under the eco cap: back to the performance cap, draining", List.of());
            }
            // the pods force left here stay exempt while they run
            List<String> forced = node.forcedPods().stream().filter(node.performancePods()::contains).toList();
            return stay(node, requested, Outcome.STEADY, ecoReason, forced);
        }
        if (!node.hasPerformancePods()) {
            if (from == PowerState.ActivePerformance) {
                // Every downgrade drains: the label goes first, and a Pod the scheduler bound while the node still said
                // performance is seen before the cap drops.
                return move(node, requested, PowerState.DrainingPerformance, now, Outcome.COMPLETED,
                        ecoReason + "; " + settling(settings.settleTime()), List.of());
            }
            Instant commit = commitAt(node);
            if (now.isBefore(commit)) {
                return stay(node, requested, Outcome.STEADY, ecoReason + "; " + settling(settings.settleTime()), List.of());
            }
            return move(node, requested, PowerState.ActiveEco, now, Outcome.COMPLETED, ecoReason, List.of());
        }
        String pods = describePods(node.performancePods());
        if (from == PowerState.ActivePerformance) {
            return move(node, requested, PowerState.DrainingPerformance, now, Outcome.COMPLETED, "draining " + pods, List.of());
        }
        // DrainingPerformance with performance-only pods left
        Duration draining = Duration.between(node.stateSinceHere(), now);
        Duration timeout = escalationAfter();
        boolean forcing = draining.compareTo(timeout) >= 0 && settings.escalation() == Escalation.FORCE;
        List<String> violators = node.violators();
        if (!violators.isEmpty() && !forcing) {
            // its NodePowerProfile asks eco already (a commit written half-way) while pods run: the cap goes back up now
            return stay(node, requested, Outcome.RESCUED, describePods(violators)
                    + " under the eco cap: back to the performance cap, draining", List.of());
        }
        if (draining.compareTo(timeout) < 0) {
            return stay(node, requested, Outcome.BLOCKED, "draining " + pods, List.of());
        }
        String after = " after draining longer than " + Durations.format(timeout);
        return switch (settings.escalation()) {
            case HOLD -> stay(node, requested, Outcome.BLOCKED, "draining " + pods + "; timeout passed, escalation hold", List.of());
            case FORCE -> move(node, requested, PowerState.ActiveEco, now, Outcome.FORCED,
                    "forced to eco" + after + "; still running " + pods, node.performancePods());
            case EVICT -> evict(node, requested, "evicting " + pods + after);
        };
    }

    /**
     * The guard's step between ticks: a rescue, a drain committing eco after its settle time, a label once the agent
     * confirmed. The reason stays the one the last tick wrote while the state does not change.
     *
     * @param heading where the last plan sent the node; null for where its state says (ActivePerformance to performance,
     *                the others to eco)
     */
    public Transition recheck(ManagedNode node, PowerState heading, String policyName, Instant now) {
        PowerState requested = heading != null ? heading
                : node.state() == PowerState.ActivePerformance ? PowerState.ActivePerformance : PowerState.ActiveEco;
        Transition t = check(node, requested, policyName, now);
        return t.changed() || node.reason().isEmpty() ? t : t.withReason(node.reason());
    }

    /** The verdict that leaves the node as it is for now (the transition budget is spent, or a recheck may not move it). */
    public Transition defer(ManagedNode node, PowerState requested, String reason) {
        return stay(node, requested, Outcome.DEFERRED, reason, node.forcedPods());
    }

    /** The verdict that leaves a node to be rescued where it is: its rescues are held ({@link Outcome#HELD}). */
    public Transition hold(ManagedNode node, PowerState requested, String reason) {
        return stay(node, requested, Outcome.HELD, reason, node.forcedPods());
    }

    /**
     * How long a drain with performance-only pods lasts before escalation acts: the downgrade timeout, and never less
     * than the settle time (a drain is never forced nor evicted before it could have committed eco on its own).
     */
    public Duration escalationAfter() {
        Duration timeout = settings.downgradeTimeout();
        return timeout.compareTo(settings.settleTime()) < 0 ? settings.settleTime() : timeout;
    }

    /**
     * When a DrainingPerformance node without performance-only pods may commit eco: the settle time after the latest of
     * its entering the state, this replica first seeing it there, and the last performance-only pod seen on it.
     */
    public Instant commitAt(ManagedNode node) {
        return commitAt(node.stateSinceHere(), node.lastPerformancePod());
    }

    /**
     * When a node draining since {@code since}, whose last performance-only pod left at {@code lastPerformancePod} (null
     * if none did), may commit eco.
     */
    public Instant commitAt(Instant since, Instant lastPerformancePod) {
        Instant quietSince = lastPerformancePod != null && lastPerformancePod.isAfter(since) ? lastPerformancePod : since;
        return quietSince.plus(settings.settleTime());
    }

    /** Added to the reason of a drain without performance-only pods while it waits out the settle time. */
    public static String settling(Duration settle) {
        return "settling: eco once no performance-only pod has been seen for " + Durations.format(settle);
    }

    /**
     * Whether the node's agent confirmed the cap {@code to} asks for: its answer ({@code status.applied}) is for the
     * NodePowerProfile's generation as the cache has it, and says {@code Applied} for every control family the spec asks
     * for (for performance: with no DVFS throttle left), and this tick does not change what the NodePowerProfile asks (a
     * new spec is a new generation, which no answer can be for yet). Fails closed: a node an agent serves is not
     * confirmed before it answered, nor when it answered that it restored the limits it found on the hardware.
     */
    CapStatus cap(ManagedNode node, PowerState to) {
        AgentReport r = node.cap().report();
        Profile profile = to.profile();
        if (!r.reported()) {
            return r.served() ? new CapStatus(CapConfirmation.Waiting, "the node's agent has not answered its NodePowerProfile yet")
                    : CapStatus.UNREPORTED;
        }
        ProfileCaps caps = settings.caps(profile, node.labels());
        Long answered = r.applied().generation();
        if (!node.cap().asks(profile, caps, node.power()) || answered == null || answered != node.cap().generation()) {
            return new CapStatus(CapConfirmation.Waiting, "waiting for the agent to apply the " + profile.value() + " cap"
                    + (profile == Profile.PERFORMANCE ? "; the performance label follows once it has" : ""));
        }
        List<CapStatus> families = new ArrayList<>();
        // a node whose inventory shows no CPU control (a GPU node without RAPL or cpufreq) cannot confirm a CPU cap
        if (caps.cpu() != null && node.power().cpuControllable()) {
            families.add(family("CPU", r.applied().cpu(), profile));
        }
        if (caps.gpuFor(node.power()).isPresent()) {
            families.add(family("GPU", r.applied().gpu(), profile));
        }
        for (CapConfirmation worst : List.of(CapConfirmation.Refused, CapConfirmation.Waiting)) {
            Optional<CapStatus> found = families.stream().filter(f -> f.confirmation() == worst).findFirst();
            if (found.isPresent()) {
                return found.get();
            }
        }
        boolean anyApplied = families.stream().anyMatch(f -> f.confirmation() == CapConfirmation.Confirmed);
        return anyApplied || families.isEmpty() ? new CapStatus(CapConfirmation.Confirmed, "")
                : new CapStatus(CapConfirmation.Unreported, families.getFirst().message());
    }

    /** One family's answer to the generation in force. */
    private static CapStatus family(String name, NodePowerProfileStatus.Family answer, Profile profile) {
        if (answer == null || answer.result() == null) {
            return new CapStatus(CapConfirmation.Waiting, "the agent's answer has no " + name + " result this operator knows");
        }
        String said = answer.message() == null ? "" : ": " + answer.message();
        return switch (answer.result()) {
            case APPLIED -> {
                if (profile == Profile.PERFORMANCE && answer instanceof NodePowerProfileStatus.Cpu cpu && cpu.throttlePercent() != null
                        && cpu.throttlePercent() > 0) {
                    yield new CapStatus(CapConfirmation.Waiting, "waiting for the agent to lift its DVFS throttle ("
                            + Math.round(cpu.throttlePercent()) + " %); the performance label follows once it has");
                }
                yield new CapStatus(CapConfirmation.Confirmed, "");
            }
            case NONE -> new CapStatus(CapConfirmation.Unreported, "the agent does not control this node's " + name + " (none)" + said);
            case RESTORED -> new CapStatus(CapConfirmation.Waiting, "the agent restored the " + name + " limits it found on the "
                    + "hardware" + said);
            case BLOCKED, ERROR -> new CapStatus(CapConfirmation.Refused, "the agent reports " + name + " "
                    + answer.result().name().toLowerCase(Locale.ROOT) + said);
        };
    }

    /**
     * The label after the transition: the state's, except that a node going to ActivePerformance is labelled
     * {@code performance} only once its agent confirmed the performance cap (or no agent reports for it); until then it
     * keeps the label it has if that admits no performance pod, else {@code eco}. A node already ActivePerformance and
     * labelled so keeps the label (a later report does not take it away).
     */
    private static String label(ManagedNode node, PowerState to, CapStatus cap) {
        String performance = PowerState.ActivePerformance.labelValue();
        if (to != PowerState.ActivePerformance) {
            return to.labelValue();
        }
        Optional<String> now = node.powerProfileLabel();
        boolean labelled = now.filter(performance::equals).isPresent();
        if (cap.admitsPerformance() || (labelled && node.state() == PowerState.ActivePerformance)) {
            return performance;
        }
        return now.filter(l -> l.equals(PowerState.ActiveEco.labelValue()) || l.equals(PowerState.DrainingPerformance.labelValue()))
                .orElse(PowerState.ActiveEco.labelValue());
    }

    /**
     * "2 performance-only pods": a count, never names (decision 158): the reason goes to the NodePowerProfile's status
     * and to Events, cluster-scoped objects that would otherwise show pod names of every namespace.
     */
    public static String describePods(List<String> pods) {
        return pods.size() + (pods.size() == 1 ? " performance-only pod" : " performance-only pods");
    }

    private Transition stay(ManagedNode n, PowerState requested, Outcome outcome, String reason, List<String> forced) {
        return verdict(n, requested, n.state(), n.since(), outcome, reason, List.of(), forced);
    }

    private Transition evict(ManagedNode n, PowerState requested, String reason) {
        return verdict(n, requested, n.state(), n.since(), Outcome.EVICTED, reason, n.performancePods(), List.of());
    }

    private Transition move(ManagedNode n, PowerState requested, PowerState to, Instant now, Outcome outcome,
                            String reason, List<String> forced) {
        return verdict(n, requested, to, now, outcome, reason, List.of(), forced);
    }

    private Transition verdict(ManagedNode n, PowerState requested, PowerState to, Instant since, Outcome outcome,
                               String reason, List<String> evict, List<String> forced) {
        CapStatus cap = cap(n, to);
        return new Transition(n.name(), n.state(), requested, to, since, outcome, reason, evict, label(n, to, cap), cap,
                to == PowerState.ActiveEco ? forced : List.of());
    }
}
