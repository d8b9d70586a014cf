package io.joulie.operator.config;

import io.joulie.api.text.LabelSelector;
import io.joulie.api.text.Problems;
import io.joulie.api.text.Problems.DurationBound;
import io.joulie.planner.PlannerSetting;
import io.joulie.planner.PlannerSettings;

import java.time.Duration;
import java.util.Optional;

/**
 * Turns the textual configuration into {@link PlannerSettings} and the operator's own settings. Every malformed value
 * is collected and reported at once, each naming its environment variable and property. The one lenient case is
 * {@code POLICY_TYPE}: an unknown policy falls back to {@code static_partition} (with a warning).
 */
public final class SettingsParser {
    private SettingsParser() {
    }

    /** The parsed settings and, when POLICY_TYPE was unknown, the value that was replaced. */
    public record Parsed(PlannerSettings settings, Optional<String> unknownPolicy, LabelSelector nodeSelector,
                         String reservedLabelKey, LeaseTimings lease) {
    }

    /** Leader-election timings, validated: retry period &lt; renew deadline &lt; lease duration. */
    public record LeaseTimings(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
    }

    public static Parsed parse(OperatorConfig c) {
        Problems problems = new Problems();
        PlannerSetting.Read planner = PlannerSetting.read(PlannerSetting.Source.ENVIRONMENT,
                s -> c.planner().get(DocumentedVariables.key(s)), s -> s.env() + " (" + s.property() + ")", problems);
        LabelSelector selector = null;
        String selectorText = c.nodeSelector().orElse("");
        try {
            selector = LabelSelector.parse(selectorText);
        } catch (IllegalArgumentException e) {
            problems.add("NODE_SELECTOR (joulie.node-selector)", selectorText, e.getMessage());
        }
        String reserved = c.reservedLabelKey() == null ? "" : c.reservedLabelKey().trim();
        if (!LabelSelector.isValidKey(reserved)) {
            problems.add("RESERVED_LABEL_KEY (joulie.reserved-label-key)", c.reservedLabelKey(), "must be a valid label key");
        }
        LeaseTimings lease = lease(c.leaderElection(), problems);
        problems.throwIfAny("Invalid Joulie operator configuration");
        return new Parsed(planner.settings().orElseThrow(), planner.unknownPolicy(), selector, reserved, lease);
    }

    private static LeaseTimings lease(OperatorConfig.LeaderElection le, Problems problems) {
        Optional<Duration> lease = problems.duration("joulie.leader-election.lease-duration", le.leaseDuration(),
                DurationBound.POSITIVE);
        Optional<Duration> renew = problems.duration("joulie.leader-election.renew-deadline", le.renewDeadline(),
                DurationBound.POSITIVE);
        Optional<Duration> retry = problems.duration("joulie.leader-election.retry-period", le.retryPeriod(),
                DurationBound.POSITIVE);
        if (lease.isEmpty() || renew.isEmpty() || retry.isEmpty()) {
            return null;
        }
        if (!(retry.get().compareTo(renew.get()) < 0 && renew.get().compareTo(lease.get()) < 0)) {
            problems.add("joulie.leader-election.*: need retry-period (%s) < renew-deadline (%s) < lease-duration (%s)"
                    .formatted(le.retryPeriod(), le.renewDeadline(), le.leaseDuration()));
        }
        return new LeaseTimings(lease.get(), renew.get(), retry.get());
    }
}
