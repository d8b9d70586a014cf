package io.joulie.operator.runtime;

import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieStatus;
import io.joulie.operator.cluster.ClusterView;
import io.joulie.operator.cluster.EventReason;
import io.joulie.operator.cluster.EventSink;
import io.joulie.operator.config.EffectivePolicy;
import io.joulie.operator.config.OperatorSettings;
import io.joulie.operator.config.PolicyOverlay;
import io.joulie.operator.telemetry.TelemetryConfig;
import io.joulie.operator.telemetry.TelemetrySource;
import io.joulie.planner.Planner;
import io.joulie.planner.PolicyRules;
import io.joulie.planner.RuleState;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Keeps the planner in line with the effective policy ({@code spec.policy} of the active {@code Joulie} resource
 * over the environment defaults): a changed setting or rule replaces the planner before the tick plans, carrying
 * the rules' state over; an invalid {@code spec.policy} keeps the planner in force and is logged once per distinct
 * set of problems. The telemetry source follows {@code spec.policy.telemetry}.
 */
@ApplicationScoped
public class PolicyReloader {
    private static final Logger LOG = Logger.getLogger(PolicyReloader.class);

    private final EffectivePolicy policy;
    private final Supplier<Joulie> active;
    private final Consumer<Optional<TelemetryConfig>> telemetry;
    private final EventSink events;
    private final Optional<String> unknownPolicy;
    private volatile Planner planner;
    private List<String> reportedErrors = List.of();
    private boolean announcedFallback;

    @Inject
    public PolicyReloader(OperatorSettings settings, EffectivePolicy policy, ClusterView view, TelemetrySource telemetry,
                          EventSink events) {
        this(new Planner(settings.planner()), settings.unknownPolicy(), policy, view::installation, telemetry::configure,
                events);
    }

    PolicyReloader(Planner initial, Optional<String> unknownPolicy, EffectivePolicy policy, Supplier<Joulie> active,
                   Consumer<Optional<TelemetryConfig>> telemetry, EventSink events) {
        this.planner = initial;
        this.unknownPolicy = unknownPolicy;
        this.policy = policy;
        this.active = active;
        this.telemetry = telemetry;
        this.events = events;
    }

    /** The planner in force. */
    public Planner current() {
        return planner;
    }

    /** Brings the planner in line with the effective policy; returns the planner this tick plans with. */
    public synchronized Planner reload() {
        return reload(false);
    }

    /**
     * Brings the planner in line with the effective policy; returns the planner this tick plans with.
     *
     * @param newTerm this is the first tick since this replica became the leader: the budget count the {@code Joulie}
     *                status keeps (the last leader's) replaces whatever this replica held before
     */
    public synchronized Planner reload(boolean newTerm) {
        announceFallback();
        EffectivePolicy.Resolution r = policy.resolve(active.get());
        if (!r.errors().equals(reportedErrors)) {
            reportedErrors = r.errors();
            if (!r.errors().isEmpty()) {
                LOG.warnf("spec.policy of the Joulie resource is invalid; planning keeps the settings in force: %s",
                        String.join("; ", r.errors()));
            }
        }
        telemetry.accept(r.rules().telemetry());
        if (newTerm) {
            resume(r);
        }
        Planner previous = planner;
        if (r.settings().equals(previous.settings()) && r.rules().rules().equals(previous.rules())) {
            return previous;
        }
        // The rules' state (hysteresis, a held budget) carries over to the new planner.
        planner = Planner.replacing(previous, r.settings(), r.rules().rules());
        LOG.infof("Planner settings changed: %s", r.settings());
        events.installation(EventReason.PolicyChanged, "planning with %s (was %s)".formatted(
                PolicyOverlay.describe(r.settings()), PolicyOverlay.describe(previous.settings()))
                + (r.rules().rules().equals(previous.rules()) ? "" : "; rules: " + describe(r.rules().rules())));
        return planner;
    }

    /**
     * At the first tick of a term as leader: the budget count the last leader held (the {@code Joulie} status) is held
     * from now on, if it was made for the budget in force, and none if the status keeps none; so a restart or a failover
     * during a telemetry outage keeps the budget instead of dropping it, and a replica that led before does not go on
     * with a count of its own that is out of date.
     */
    private void resume(EffectivePolicy.Resolution r) {
        Joulie joulie = active.get();
        JoulieStatus.BudgetHold hold = joulie == null || joulie.getStatus() == null ? null : joulie.getStatus().budgetHold();
        PolicyRules rules = r.rules().rules();
        boolean applies = hold != null && hold.performanceNodes() != null && rules.budgetWatts().isPresent()
                && Objects.equals(hold.budgetWatts(), rules.budgetWatts().getAsDouble());
        OptionalInt count = applies ? OptionalInt.of(hold.performanceNodes()) : OptionalInt.empty();
        RuleState s = planner.ruleState();
        if (count.equals(s.budgetPerformanceNodes())) {
            return;
        }
        planner = Planner.resuming(r.settings(), rules, new RuleState(s.hotNodes(), s.hotRacks(), count));
        if (applies) {
            LOG.infof("Holding the power budget's count of %d performance nodes from the Joulie status", hold.performanceNodes());
        }
    }

    /** The budget count {@code planner} holds for its next tick, as the {@code Joulie} status keeps it. */
    static Optional<JoulieStatus.BudgetHold> held(Planner planner) {
        OptionalInt n = planner.ruleState().budgetPerformanceNodes();
        OptionalDouble watts = planner.rules().budgetWatts();
        return n.isPresent() && watts.isPresent()
                ? Optional.of(new JoulieStatus.BudgetHold(n.getAsInt(), watts.getAsDouble())) : Optional.empty();
    }

    /** The rules in a few words, for the PolicyChanged Event. */
    static String describe(PolicyRules r) {
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

    /**
     * An unknown POLICY_TYPE, and each planning setting the operator's environment sets, are announced once, on the first
     * tick this replica plans.
     */
    private void announceFallback() {
        if (!announcedFallback) {
            announcedFallback = true;
            policy.environment().forEach(v -> events.operator(EventReason.PlanningSettingInEnvironment, v.message()));
            unknownPolicy.ifPresent(p -> events.operator(EventReason.UnknownPolicy,
                    "POLICY_TYPE '" + p + "' is not a known policy; planning with static_partition"));
        }
    }
}
