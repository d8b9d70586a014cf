package io.joulie.operator.config;

import io.joulie.api.text.Problems;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.planner.PlannerSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The planner settings in force: the active {@code Joulie} resource's {@code spec.policy} over the
 * environment defaults. The planner loop and the {@code Joulie} reconciler both resolve through this one
 * place, so the status shows exactly what the planner uses. An invalid {@code spec.policy} keeps the last
 * valid settings (the defaults after a restart) and reports why; removing the resource or its
 * {@code spec.policy} returns to the defaults.
 */
@ApplicationScoped
public class EffectivePolicy {
    private final PlannerSettings defaults;
    private final List<PlanningVariable> environment;
    private PlannerSettings lastGood;
    private RulesParser.ParsedRules lastGoodRules = RulesParser.ParsedRules.NONE;
    /** The spec.policy whose rule fields are in force (status.effectivePolicy shows them). */
    private JoulieSpec.Policy lastGoodRuleSpec;
    /** The spec.policy last resolved and what it resolved to. */
    private JoulieSpec.Policy lastInput;
    private Resolution lastResolution;

    @Inject
    public EffectivePolicy(OperatorSettings operator) {
        this(operator.planner(), operator.environment());
    }

    /** Over these environment defaults. */
    public EffectivePolicy(PlannerSettings defaults) {
        this(defaults, List.of());
    }

    /**
     * Over these defaults, which {@code environment} set in part (reported with every resolution).
     */
    public EffectivePolicy(PlannerSettings defaults, List<PlanningVariable> environment) {
        this.defaults = defaults;
        this.lastGood = defaults;
        this.environment = List.copyOf(environment);
    }

    /** The planning settings the operator's environment sets, which belong in {@code spec.policy} (decision 136). */
    public List<PlanningVariable> environment() {
        return environment;
    }

    /**
     * The settings and rules in force and, when {@code spec.policy} was rejected, why.
     *
     * @param ruleSpec    the {@code spec.policy} whose rule fields are in force ({@code null} for none)
     * @param environment the planning settings the operator's environment sets: reported, not errors
     */
    public record Resolution(PlannerSettings settings, List<String> errors, RulesParser.ParsedRules rules,
                             JoulieSpec.Policy ruleSpec, List<PlanningVariable> environment) {
        public Resolution {
            Objects.requireNonNull(settings);
            Objects.requireNonNull(rules);
            errors = List.copyOf(errors);
            environment = List.copyOf(environment);
        }

        /** {@code status.effectivePolicy}: the settings with the rules in force. */
        public JoulieSpec.Policy describe() {
            return PolicyOverlay.describe(settings).withRulesOf(ruleSpec);
        }
    }

    /**
     * Resolves for the active resource ({@code null} when there is none). Settings and rules are one
     * unit: an error in either keeps both as they were.
     */
    public synchronized Resolution resolve(Joulie active) {
        var policy = active == null || active.getSpec() == null ? null : active.getSpec().policy();
        // Every tick and every reconcile ask; parsing is needed only when spec.policy changed.
        if (lastResolution != null && Objects.equals(policy, lastInput)) {
            return lastResolution;
        }
        PolicyOverlay.Result r = PolicyOverlay.apply(defaults, policy);
        Problems ruleProblems = new Problems();
        RulesParser.ParsedRules rules = policy == null ? RulesParser.ParsedRules.NONE : RulesParser.parse(policy.timeZone(),
                policy.schedules(), policy.powerBudget(), policy.hotspots(), policy.telemetry(), ruleProblems);
        List<String> errors = new ArrayList<>(r.errors());
        errors.addAll(ruleProblems.lines());
        if (errors.isEmpty()) {
            lastGood = r.settings().orElseThrow();
            lastGoodRules = rules;
            lastGoodRuleSpec = rules.rules().isEmpty() && rules.telemetry().isEmpty() ? null : policy;
        }
        lastInput = policy;
        lastResolution = new Resolution(lastGood, errors, lastGoodRules, lastGoodRuleSpec, environment);
        return lastResolution;
    }
}
