package io.joulie.operator.config;

import io.joulie.api.text.LabelSelector;
import io.joulie.planner.PlannerSettings;
import io.joulie.planner.PolicyType;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.util.Optional;

/**
 * The validated configuration, built once at start-up: a bad value fails start-up with a message that
 * names the variable; an unknown policy falls back to static_partition with a warning (and an Event on
 * the first tick).
 */
@Startup
@ApplicationScoped
public class OperatorSettings {
    private static final Logger LOG = Logger.getLogger(OperatorSettings.class);

    private final SettingsParser.Parsed parsed;

    public OperatorSettings(OperatorConfig config) {
        this.parsed = SettingsParser.parse(config);
        parsed.unknownPolicy().ifPresent(p -> LOG.warnf(
                "POLICY_TYPE '%s' is not a known policy (%s); using static_partition", p, PolicyType.knownValues()));
        LOG.infof("Joulie planner settings: %s, node selector '%s', reserved label %s", parsed.settings(),
                parsed.nodeSelector(), parsed.reservedLabelKey());
    }

    public PlannerSettings planner() {
        return parsed.settings();
    }

    public LabelSelector nodeSelector() {
        return parsed.nodeSelector();
    }

    public String reservedLabelKey() {
        return parsed.reservedLabelKey();
    }

    public SettingsParser.LeaseTimings lease() {
        return parsed.lease();
    }

    /** The unknown POLICY_TYPE value that was replaced by static_partition, if any. */
    public Optional<String> unknownPolicy() {
        return parsed.unknownPolicy();
    }
}
