package io.joulie.operator.config;

import io.joulie.api.text.LabelSelector;
import io.joulie.api.text.Durations;
import io.joulie.planner.Escalation;
import io.joulie.planner.PlannerSettings;
import io.joulie.planner.PolicyType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Turns the textual configuration into {@link PlannerSettings}. Every malformed value is collected and
 * reported at once, each naming its environment variable and property. The one lenient case is
 * {@code POLICY_TYPE}: an unknown policy falls back to {@code static_partition} (with a warning).
 */
public final class SettingsParser {
    private final List<String> errors = new ArrayList<>();

    /** The parsed settings and, when POLICY_TYPE was unknown, the value that was replaced. */
    public record Parsed(PlannerSettings settings, Optional<String> unknownPolicy, LabelSelector nodeSelector,
                         String reservedLabelKey, LeaseTimings lease) {
    }

    /** Leader-election timings, validated: retry period &lt; renew deadline &lt; lease duration. */
    public record LeaseTimings(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
    }

    public static Parsed parse(OperatorConfig c) {
        return new SettingsParser().run(c);
    }

    private Parsed run(OperatorConfig c) {
        Optional<PolicyType> type = PolicyType.fromConfig(c.policyType());
        double staticFrac = number("STATIC_HP_FRAC", "joulie.static-hp-frac", c.staticHpFrac());
        double baseFrac = number("QUEUE_HP_BASE_FRAC", "joulie.queue-hp-base-frac", c.queueHpBaseFrac());
        int min = integer("QUEUE_HP_MIN", "joulie.queue-hp-min", c.queueHpMin());
        int max = integer("QUEUE_HP_MAX", "joulie.queue-hp-max", c.queueHpMax());
        int perNode = integer("QUEUE_PERF_PER_HP_NODE", "joulie.queue-perf-per-hp-node", c.queuePerfPerHpNode());
        double perfCap = cap("PERFORMANCE_CAP_WATTS", "joulie.performance-cap-watts", c.performanceCapWatts());
        double ecoCap = cap("ECO_CAP_WATTS", "joulie.eco-cap-watts", c.ecoCapWatts());
        Escalation escalation = Escalation.fromConfig(c.downgradeEscalation()).orElseGet(() -> {
            error("DOWNGRADE_ESCALATION", "joulie.downgrade-escalation", c.downgradeEscalation(),
                    "must be hold, force or evict");
            return Escalation.HOLD;
        });
        Duration timeout = duration("DOWNGRADE_TIMEOUT", "joulie.downgrade-timeout", c.downgradeTimeout(), false);
        Duration interval = duration("RECONCILE_INTERVAL", "joulie.reconcile-interval", c.reconcileInterval(), true);
        LabelSelector selector = null;
        String selectorText = c.nodeSelector().orElse("");
        try {
            selector = LabelSelector.parse(selectorText);
        } catch (IllegalArgumentException e) {
            error("NODE_SELECTOR", "joulie.node-selector", selectorText, e.getMessage());
        }
        String reserved = c.reservedLabelKey() == null ? "" : c.reservedLabelKey().trim();
        if (!LabelSelector.isValidKey(reserved)) {
            error("RESERVED_LABEL_KEY", "joulie.reserved-label-key", c.reservedLabelKey(), "must be a valid label key");
        }
        LeaseTimings lease = lease(c.leaderElection());
        if (!errors.isEmpty()) {
            throw new ConfigurationException("Invalid Joulie operator configuration:\n  - " + String.join("\n  - ", errors));
        }
        PlannerSettings s = new PlannerSettings(type.orElse(PolicyType.STATIC_PARTITION), staticFrac, baseFrac, min, max,
                perNode, perfCap, ecoCap, escalation, timeout, interval);
        return new Parsed(s, type.isPresent() ? Optional.empty() : Optional.ofNullable(c.policyType()), selector, reserved,
                lease);
    }

    private LeaseTimings lease(OperatorConfig.LeaderElection le) {
        int before = errors.size();
        Duration lease = duration("-", "joulie.leader-election.lease-duration", le.leaseDuration(), true);
        Duration renew = duration("-", "joulie.leader-election.renew-deadline", le.renewDeadline(), true);
        Duration retry = duration("-", "joulie.leader-election.retry-period", le.retryPeriod(), true);
        if (errors.size() == before && !(retry.compareTo(renew) < 0 && renew.compareTo(lease) < 0)) {
            errors.add("joulie.leader-election.*: need retry-period (%s) < renew-deadline (%s) < lease-duration (%s)"
                    .formatted(le.retryPeriod(), le.renewDeadline(), le.leaseDuration()));
        }
        return new LeaseTimings(lease, renew, retry);
    }

    private void error(String env, String property, String value, String problem) {
        errors.add(env.equals("-") ? "%s = '%s': %s".formatted(property, value, problem)
                : "%s (%s) = '%s': %s".formatted(env, property, value, problem));
    }

    /** The value as a finite number, or NaN after reporting it. */
    private double number(String env, String property, String value) {
        try {
            double d = Double.parseDouble(value.trim());
            if (Double.isFinite(d)) {
                return d;
            }
        } catch (RuntimeException e) {
            // reported below
        }
        error(env, property, value, "is not a number");
        return Double.NaN;
    }

    private double cap(String env, String property, String value) {
        double d = number(env, property, value);
        if (d <= 0) {
            error(env, property, value, "a power cap must be greater than 0 watts");
        }
        return d;
    }

    private int integer(String env, String property, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (RuntimeException e) {
            error(env, property, value, "is not a whole number");
            return 0;
        }
    }

    private Duration duration(String env, String property, String value, boolean positive) {
        try {
            Duration d = Durations.parse(value);
            if (d.isNegative() || (positive && d.isZero())) {
                error(env, property, value, positive ? "must be greater than 0" : "must not be negative");
            }
            return d;
        } catch (IllegalArgumentException e) {
            error(env, property, value, e.getMessage());
            return Duration.ZERO;
        }
    }
}
