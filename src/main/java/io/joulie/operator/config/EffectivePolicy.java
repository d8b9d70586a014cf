package io.joulie.operator.config;

import io.joulie.api.v1alpha1.JoulieInstallation;
import io.joulie.operator.planner.PlannerSettings;
import jakarta.enterprise.context.ApplicationScoped;

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
    private final OperatorSettings operator;
    private PlannerSettings lastGood;

    public EffectivePolicy(OperatorSettings operator) {
        this.operator = operator;
        this.lastGood = operator.planner();
    }

    /** The settings in force and, when {@code spec.policy} was rejected, why. */
    public record Resolution(PlannerSettings settings, List<String> errors) {
        public Resolution {
            Objects.requireNonNull(settings);
            errors = List.copyOf(errors);
        }
    }

    /** Resolves for the active resource ({@code null} when there is none). */
    public synchronized Resolution resolve(JoulieInstallation active) {
        var policy = active == null || active.getSpec() == null ? null : active.getSpec().policy();
        PolicyOverlay.Result r = PolicyOverlay.apply(operator.planner(), policy);
        r.settings().ifPresent(s -> lastGood = s);
        return new Resolution(lastGood, r.errors());
    }

    /** The last resolved settings. */
    public synchronized PlannerSettings current() {
        return lastGood;
    }
}
