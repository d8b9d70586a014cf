package io.joulie.operator.config;

import io.joulie.api.text.LabelSelector;
import io.joulie.planner.PlannerSettings;
import io.joulie.planner.PolicyType;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

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
    private final List<PlanningVariable> environment;

    @Inject
    public OperatorSettings(OperatorConfig config) {
        this(config, System::getenv);
    }

    /** Over this environment, which is searched for planning variables only ({@code config} has their values). */
    public OperatorSettings(OperatorConfig config, Function<String, String> environment) {
        this.parsed = SettingsParser.parse(config);
        this.environment = PlanningVariable.in(environment);
        this.environment.forEach(v -> LOG.warn(v.message()));
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

    /** The planning settings the operator's environment sets (reported; decision 136). */
    public List<PlanningVariable> environment() {
        return environment;
    }

    /** The unknown POLICY_TYPE value that was replaced by static_partition, if any. */
    public Optional<String> unknownPolicy() {
        return parsed.unknownPolicy();
    }
}
