package io.joulie.operator.runtime;

import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.api.v1alpha1.PolicyRulesSpec;
import io.joulie.operator.cluster.EventReason;
import io.joulie.operator.config.EffectivePolicy;
import io.joulie.operator.config.PlanningVariable;
import io.joulie.operator.telemetry.TelemetryConfig;
import io.joulie.planner.Planner;
import io.joulie.planner.PlannerSettings;
import io.joulie.planner.PolicyType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class PolicyReloaderTest {
    static final PlannerSettings DEFAULTS = PlannerSettings.defaults();

    final AtomicReference<Joulie> active = new AtomicReference<>();
    final List<Optional<TelemetryConfig>> telemetry = new ArrayList<>();
    final RecordingEvents events = new RecordingEvents();

    PolicyReloader reloader(Optional<String> unknownPolicy) {
        return new PolicyReloader(new Planner(DEFAULTS), unknownPolicy, new EffectivePolicy(DEFAULTS), active::get,
                telemetry::add, events);
    }

    static Joulie joulie(JoulieSpec.Policy policy) {
        Joulie j = new Joulie();
        j.getMetadata().setName(Joulie.ACTIVE_NAME);
        j.setSpec(new JoulieSpec(null, policy, null));
        return j;
    }

    static JoulieSpec.Policy share(double staticHpFrac) {
        return JoulieSpec.Policy.of("staticHpFrac", staticHpFrac);
    }

    @Test
    void withoutAJoulieResourceTheEnvironmentsPlannerStays() {
        PolicyReloader reloader = reloader(Optional.empty());
        Planner first = reloader.current();

        assertThat(reloader.reload()).isSameAs(first);
        assertThat(reloader.reload()).isSameAs(first);
        assertThat(events.recorded).isEmpty();
        assertThat(telemetry).containsExactly(Optional.empty(), Optional.empty());
    }

    @Test
    void aChangedSpecPolicyReplacesThePlannerOnceWithAPolicyChangedEvent() {
        PolicyReloader reloader = reloader(Optional.empty());
        active.set(joulie(share(0.75)));

        Planner replaced = reloader.reload();
        assertThat(replaced.settings().staticHpFrac()).isEqualTo(0.75);
        assertThat(replaced.settings().ecoCapWatts()).as("unset fields keep the environment's").isEqualTo(DEFAULTS.ecoCapWatts());
        assertThat(reloader.current()).isSameAs(replaced);
        assertThat(reloader.reload()).as("unchanged: the same planner").isSameAs(replaced);
        assertThat(events.of(EventReason.PolicyChanged)).singleElement().asString()
                .startsWith("joulie PolicyChanged: planning with ")
                .contains("staticHpFrac=0.75", "(was ", "staticHpFrac=0.5")
                .doesNotContain("rules:");

        active.set(null);
        assertThat(reloader.reload().settings()).as("the resource deleted: back to the defaults").isEqualTo(DEFAULTS);
        assertThat(events.of(EventReason.PolicyChanged)).hasSize(2);
    }

    @Test
    void changedRulesAreNamedInTheEventAndConfigureTheTelemetrySource() {
        PolicyReloader reloader = reloader(Optional.empty());
        var prometheus = new PolicyRulesSpec.Telemetry(new PolicyRulesSpec.Prometheus("http://prom:9090", null, null, null,
                new PolicyRulesSpec.Queries("power", null, null, null), null, null, null, null));
        var window = new PolicyRulesSpec.Schedule("office", List.of("Mon-Fri"), "08:00", "18:00", null, 0.9, null, null);
        active.set(joulie(JoulieSpec.Policy.of("schedules", List.of(window), "powerBudget", new PolicyRulesSpec.PowerBudget(4000.0),
                "telemetry", prometheus)));

        Planner planner = reloader.reload();

        assertThat(planner.rules().schedules()).hasSize(1);
        assertThat(events.of(EventReason.PolicyChanged)).singleElement().asString()
                .endsWith("; rules: 1 schedule window(s), power budget 4000 W");
        assertThat(telemetry).singleElement().satisfies(t -> assertThat(t).get()
                .satisfies(c -> assertThat(c.url().toString()).isEqualTo("http://prom:9090")));
    }

    @Test
    void anInvalidSpecPolicyKeepsThePlannerInForce() {
        PolicyReloader reloader = reloader(Optional.empty());
        active.set(joulie(share(0.75)));
        Planner good = reloader.reload();

        active.set(joulie(JoulieSpec.Policy.of("type", "fastest", "staticHpFrac", 0.25, "ecoCapWatts", -5.0)));

        assertThat(reloader.reload()).isSameAs(good);
        assertThat(reloader.current().settings().staticHpFrac()).isEqualTo(0.75);
        assertThat(events.of(EventReason.PolicyChanged)).hasSize(1);
    }

    @Test
    void theIntervalInForceFollowsSpecPolicy() {
        PolicyReloader reloader = reloader(Optional.empty());
        active.set(joulie(JoulieSpec.Policy.of("reconcileInterval", "15s")));

        assertThat(reloader.reload().settings().reconcileInterval()).isEqualTo(Duration.ofSeconds(15));
    }

    @Test
    void anUnknownPolicyTypeIsAnnouncedOnceOnTheFirstReload() {
        PolicyReloader reloader = reloader(Optional.of("carbon_magic_v9"));
        assertThat(events.recorded).isEmpty();

        reloader.reload();
        reloader.reload();

        assertThat(events.recorded).containsExactly("operator UnknownPolicy: POLICY_TYPE 'carbon_magic_v9' is not a known"
                + " policy; planning with static_partition");
        assertThat(reloader.current().settings().policyType()).isEqualTo(PolicyType.STATIC_PARTITION);
    }

    @Test
    void eachPlanningVariableOfTheEnvironmentIsAnnouncedOnceWithItsField() {
        List<PlanningVariable> env = PlanningVariable.in(Map.of("STATIC_HP_FRAC", "0.9", "JOULIE_SETTLE_TIME", "1s")::get);
        PolicyReloader reloader = new PolicyReloader(new Planner(DEFAULTS), Optional.empty(), new EffectivePolicy(DEFAULTS, env),
                active::get, telemetry::add, events);

        reloader.reload();
        reloader.reload();

        assertThat(events.recorded).containsExactly(
                "operator PlanningSettingInEnvironment: STATIC_HP_FRAC is set in the operator's environment: set "
                        + "spec.policy.staticHpFrac of the Joulie resource instead; the variable is honoured under spec.policy "
                        + "until the next release, then ignored",
                "operator PlanningSettingInEnvironment: JOULIE_SETTLE_TIME is set in the operator's environment: set "
                        + "spec.policy.settleTime of the Joulie resource instead; the variable is honoured under spec.policy "
                        + "until the next release, then ignored");
    }

    static Joulie withHold(JoulieSpec.Policy policy, Integer held, Double watts) {
        Joulie j = joulie(policy);
        j.setStatus(new io.joulie.api.v1alpha1.JoulieStatus(null, null, null, null, null, null,
                held == null ? null : new io.joulie.api.v1alpha1.JoulieStatus.BudgetHold(held, watts)));
        return j;
    }

    @Test
    void atANewTermTheBudgetCountTheStatusKeepsIsHeldIfItWasMadeForTheBudgetInForce() {
        PolicyReloader reloader = reloader(Optional.empty());
        JoulieSpec.Policy budget = JoulieSpec.Policy.of("powerBudget", java.util.Map.of("watts", 900.0));
        active.set(withHold(budget, 3, 900.0));

        assertThat(reloader.reload(true).ruleState().budgetPerformanceNodes()).hasValue(3);
        assertThat(PolicyReloader.held(reloader.current())).contains(new io.joulie.api.v1alpha1.JoulieStatus.BudgetHold(3, 900.0));

        // within the term, the planner's own count is what it holds (the status lags it)
        active.set(withHold(budget, 7, 900.0));
        assertThat(reloader.reload(false).ruleState().budgetPerformanceNodes()).hasValue(3);
        // a new term: the last leader's count wins over this replica's own
        assertThat(reloader.reload(true).ruleState().budgetPerformanceNodes()).hasValue(7);
        // a count made for another budget is not used; none kept means none held
        active.set(withHold(budget, 5, 1200.0));
        assertThat(reloader.reload(true).ruleState().budgetPerformanceNodes()).isEmpty();
        active.set(withHold(budget, null, null));
        assertThat(reloader.reload(true).ruleState().budgetPerformanceNodes()).isEmpty();
    }
}
