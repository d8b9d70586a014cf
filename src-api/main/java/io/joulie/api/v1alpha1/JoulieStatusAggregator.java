package io.joulie.api.v1alpha1;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Builds the status of a {@code Joulie} resource from what the operator found: the agent rollout, the effective
 * policy, the problems, the planner's report and further conditions. The problems are collected from anywhere and
 * ordered by {@link ConditionReason} when the status is built: the most important names {@code Degraded}. What the
 * caller does not report is kept from the previous status where that is the truth (the planner's node counts and
 * problems on a replica that does not plan). A condition whose status did not change keeps its
 * {@code lastTransitionTime}.
 */
public final class JoulieStatusAggregator {
    /** A problem that makes the resource {@code Degraded}. */
    public record Problem(ConditionReason reason, String message) {
        public Problem {
            Objects.requireNonNull(reason);
            Objects.requireNonNull(message);
        }
    }

    private final Joulie joulie;
    private final JoulieStatus previous;
    private JoulieStatus.Agents agents;
    private ConditionReason rollout = ConditionReason.Deploying;
    private String rolloutMessage = "the agent DaemonSet is being created";
    private JoulieSpec.Policy effectivePolicy;
    private final List<Problem> problems = new ArrayList<>();
    private boolean plannerReported;
    private JoulieStatus.Nodes nodes;
    private List<JoulieStatus.ExcludedNode> excluded;
    private JoulieStatus.BudgetHold budgetHold;
    private final List<Condition> more = new ArrayList<>();
    private Problem agentProblem;

    private JoulieStatusAggregator(Joulie joulie) {
        this.joulie = joulie;
        this.previous = joulie.getStatus();
        this.nodes = previous == null ? null : previous.nodes();
        this.excluded = previous == null ? null : previous.excludedNodes();
        this.budgetHold = previous == null ? null : previous.budgetHold();
    }

    /** The status of {@code joulie}, starting from what it shows now. */
    public static JoulieStatusAggregator of(Joulie joulie) {
        return new JoulieStatusAggregator(joulie);
    }

    /**
     * The agent DaemonSet's counts: nodes it should run on, agents ready and agents on the current template.
     *
     * @param nodeSelection how the DaemonSet selects nodes, in words, for the message when it selects none
     */
    public JoulieStatusAggregator agents(int desired, int ready, int updated, String nodeSelection) {
        agents = new JoulieStatus.Agents(desired, ready, updated);
        if (desired == 0) {
            rollout = ConditionReason.NoNodesSelected;
            rolloutMessage = "the agent DaemonSet selects no node (" + nodeSelection + ")";
            problem(ConditionReason.NoNodesSelected, rolloutMessage);
        } else {
            boolean done = ready == desired && updated == desired;
            rollout = done ? ConditionReason.AllAgentsReady : ConditionReason.RollingOut;
            rolloutMessage = ready + " of " + desired + " agents ready, " + updated + " updated";
        }
        return this;
    }

    /** The planner settings and rules in force ({@code status.effectivePolicy}). */
    public JoulieStatusAggregator effectivePolicy(JoulieSpec.Policy policy) {
        effectivePolicy = policy;
        return this;
    }

    public JoulieStatusAggregator problem(ConditionReason reason, String message) {
        problems.add(new Problem(reason, message));
        return this;
    }

    /**
     * Why agent pods do not run ({@link ConditionReason#AgentPodsRefused}, {@link ConditionReason#AgentPodsUnschedulable},
     * {@link ConditionReason#AgentPodsFailing}): each makes the resource {@code Degraded}, and the first (in that
     * order) also names why it is not {@code Available}. Call after {@link #agents}.
     */
    public JoulieStatusAggregator agentProblems(List<Problem> found) {
        if (found.isEmpty() || rollout == ConditionReason.AllAgentsReady) {
            return this;
        }
        List<Problem> sorted = new ArrayList<>(found);
        sorted.sort(Comparator.comparing(Problem::reason));
        agentProblem = sorted.getFirst();
        problems.addAll(sorted);
        return this;
    }

    /**
     * The planning leader's last report: nodes by state, the nodes left out, the problems it found and the budget
     * count it holds (null for none).
     */
    public JoulieStatusAggregator planner(JoulieStatus.Nodes nodes, List<JoulieStatus.ExcludedNode> excluded,
                                          List<Problem> problems, JoulieStatus.BudgetHold budgetHold) {
        this.plannerReported = true;
        this.nodes = nodes;
        this.excluded = excluded.isEmpty() ? null : List.copyOf(Limits.first(excluded, Limits.NODES)); // nodes.excluded counts all
        this.problems.addAll(problems);
        this.budgetHold = budgetHold;
        return this;
    }

    /** A further condition, e.g. {@code MonitoringReady}; null for none yet. */
    public JoulieStatusAggregator condition(Condition c) {
        if (c != null) {
            more.add(new ConditionBuilder(c).build());
        }
        return this;
    }

    /** The status as of {@code now}. */
    public JoulieStatus build(Instant now) {
        List<Problem> found = new ArrayList<>(problems);
        if (!plannerReported) {
            // Not the planning leader (or before its first tick): keep the planner's problem the leader reported.
            conditionOf(previous, JoulieCondition.Degraded)
                    .filter(c -> "True".equals(c.getStatus()) && isPlannerReason(c.getReason()))
                    .ifPresent(c -> found.add(new Problem(ConditionReason.valueOf(c.getReason()), c.getMessage())));
        }
        found.sort(Comparator.comparing(Problem::reason));
        boolean done = rollout == ConditionReason.AllAgentsReady;
        boolean deploying = rollout == ConditionReason.Deploying;
        List<Condition> conditions = new ArrayList<>();
        conditions.add(agentProblem != null
                ? condition(JoulieCondition.Available, false, agentProblem.reason(), rolloutMessage + ": " + agentProblem.message())
                : condition(JoulieCondition.Available, done, done ? ConditionReason.AllAgentsReady
                : deploying || rollout == ConditionReason.NoNodesSelected ? rollout : ConditionReason.AgentsNotReady,
                rolloutMessage));
        conditions.add(condition(JoulieCondition.Progressing, deploying || rollout == ConditionReason.RollingOut,
                done ? ConditionReason.RolloutComplete : rollout, rolloutMessage));
        conditions.add(found.isEmpty()
                ? condition(JoulieCondition.Degraded, false, rollout, "no problem found")
                : condition(JoulieCondition.Degraded, true, found.getFirst().reason(),
                found.stream().map(Problem::message).collect(Collectors.joining("; "))));
        conditions.addAll(more);
        return status(agents, effectivePolicy, nodes, excluded, conditions, now);
    }

    /** The status of a resource that is not the active one: it is not acted on. */
    public JoulieStatus notActive(Instant now) {
        String m = "only the Joulie resource named '" + Joulie.ACTIVE_NAME + "' is acted on";
        return failed(ConditionReason.NotActive, m, null, null, null, null, now);
    }

    /** The status after reconciling failed: what it showed stays, the conditions say why. */
    public JoulieStatus reconcileError(String message, Instant now) {
        return failed(ConditionReason.ReconcileError, message, previous == null ? null : previous.agents(),
                previous == null ? null : previous.effectivePolicy(), nodes, excluded, now);
    }

    private JoulieStatus failed(ConditionReason reason, String message, JoulieStatus.Agents agents,
                                JoulieSpec.Policy policy, JoulieStatus.Nodes nodes,
                                List<JoulieStatus.ExcludedNode> excluded, Instant now) {
        return status(agents, policy, nodes, excluded, List.of(condition(JoulieCondition.Available, false, reason, message),
                condition(JoulieCondition.Progressing, false, reason, message),
                condition(JoulieCondition.Degraded, true, reason, message)), now);
    }

    private static boolean isPlannerReason(String reason) {
        for (ConditionReason r : ConditionReason.values()) {
            if (r.fromPlanner() && r.name().equals(reason)) {
                return true;
            }
        }
        return false;
    }

    private static Optional<Condition> conditionOf(JoulieStatus status, JoulieCondition type) {
        if (status == null || status.conditions() == null) {
            return Optional.empty();
        }
        return status.conditions().stream().filter(c -> type.name().equals(c.getType())).findFirst();
    }

    /** A condition as the wire has it. */
    public static Condition condition(JoulieCondition type, boolean status, ConditionReason reason, String message) {
        return new ConditionBuilder().withType(type.name()).withStatus(status ? "True" : "False")
                .withReason(reason.name()).withMessage(message).build();
    }

    private JoulieStatus status(JoulieStatus.Agents agents, JoulieSpec.Policy policy, JoulieStatus.Nodes nodes,
                                List<JoulieStatus.ExcludedNode> excluded, List<Condition> conditions, Instant now) {
        Long generation = joulie.getMetadata().getGeneration();
        List<Condition> before = previous == null || previous.conditions() == null ? List.of() : previous.conditions();
        String time = now.truncatedTo(ChronoUnit.SECONDS).toString();
        List<Condition> result = new ArrayList<>(conditions.size());
        for (Condition c : conditions) {
            c.setObservedGeneration(generation);
            c.setLastTransitionTime(before.stream().filter(p -> p.getType().equals(c.getType())
                            && p.getStatus().equals(c.getStatus())).map(Condition::getLastTransitionTime)
                    .filter(Objects::nonNull).findFirst().orElse(time));
            result.add(c);
        }
        return new JoulieStatus(result, generation, agents, policy, nodes, excluded, budgetHold);
    }
}
