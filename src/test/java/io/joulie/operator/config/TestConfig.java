package io.joulie.operator.config;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** An {@link OperatorConfig} over environment-variable names, starting from the documented defaults. */
final class TestConfig implements OperatorConfig {
    private final Map<String, String> env = new HashMap<>(Map.ofEntries(
            Map.entry("POLICY_TYPE", "static_partition"),
            Map.entry("STATIC_HP_FRAC", "0.50"),
            Map.entry("QUEUE_HP_BASE_FRAC", "0.60"),
            Map.entry("QUEUE_HP_MIN", "1"),
            Map.entry("QUEUE_HP_MAX", "1000000"),
            Map.entry("QUEUE_PERF_PER_HP_NODE", "10"),
            Map.entry("NODE_SELECTOR", "joulie.io/managed=true"),
            Map.entry("RESERVED_LABEL_KEY", "joulie.io/reserved"),
            Map.entry("PERFORMANCE_CAP_WATTS", "5000"),
            Map.entry("ECO_CAP_WATTS", "120"),
            Map.entry("ECO_CAP_WATTS_BY_TYPE", ""),
            Map.entry("DEMAND_HEADROOM_FRAC", "0.2"),
            Map.entry("DOWNGRADE_ESCALATION", "hold"),
            Map.entry("DOWNGRADE_TIMEOUT", "30m"),
            Map.entry("RECONCILE_INTERVAL", "1m")));

    private String leaseDuration = "15s";
    private String renewDeadline = "10s";
    private String retryPeriod = "2s";

    TestConfig withLease(String lease, String renew, String retry) {
        this.leaseDuration = lease;
        this.renewDeadline = renew;
        this.retryPeriod = retry;
        return this;
    }

    /** Sets a variable; {@code null} models a value that is absent. */
    TestConfig with(String variable, String value) {
        if (!env.containsKey(variable)) {
            throw new IllegalArgumentException("unknown variable " + variable);
        }
        env.put(variable, value);
        return this;
    }

    @Override
    public String policyType() {
        return env.get("POLICY_TYPE");
    }

    @Override
    public String staticHpFrac() {
        return env.get("STATIC_HP_FRAC");
    }

    @Override
    public String queueHpBaseFrac() {
        return env.get("QUEUE_HP_BASE_FRAC");
    }

    @Override
    public String queueHpMin() {
        return env.get("QUEUE_HP_MIN");
    }

    @Override
    public String queueHpMax() {
        return env.get("QUEUE_HP_MAX");
    }

    @Override
    public String queuePerfPerHpNode() {
        return env.get("QUEUE_PERF_PER_HP_NODE");
    }

    @Override
    public Optional<String> nodeSelector() {
        return Optional.ofNullable(env.get("NODE_SELECTOR")).filter(v -> !v.isEmpty());
    }

    @Override
    public String reservedLabelKey() {
        return env.get("RESERVED_LABEL_KEY");
    }

    @Override
    public String performanceCapWatts() {
        return env.get("PERFORMANCE_CAP_WATTS");
    }

    @Override
    public String ecoCapWatts() {
        return env.get("ECO_CAP_WATTS");
    }

    @Override
    public Optional<String> ecoCapWattsByType() {
        return Optional.ofNullable(env.get("ECO_CAP_WATTS_BY_TYPE")).filter(v -> !v.isEmpty());
    }

    @Override
    public String demandHeadroomFrac() {
        return env.get("DEMAND_HEADROOM_FRAC");
    }

    @Override
    public String downgradeEscalation() {
        return env.get("DOWNGRADE_ESCALATION");
    }

    @Override
    public String downgradeTimeout() {
        return env.get("DOWNGRADE_TIMEOUT");
    }

    @Override
    public String reconcileInterval() {
        return env.get("RECONCILE_INTERVAL");
    }

    @Override
    public Optional<String> podName() {
        return Optional.empty();
    }

    @Override
    public Optional<String> podNamespace() {
        return Optional.empty();
    }

    @Override
    public AgentDefaults agent() {
        return () -> "quay.io/joulie/joulie-agent:test";
    }

    @Override
    public LeaderElection leaderElection() {
        return new LeaderElection() {
            @Override
            public boolean enabled() {
                return false;
            }

            @Override
            public String leaseName() {
                return "joulie-operator-leader";
            }

            @Override
            public Optional<String> namespace() {
                return Optional.empty();
            }

            @Override
            public String leaseDuration() {
                return leaseDuration;
            }

            @Override
            public String renewDeadline() {
                return renewDeadline;
            }

            @Override
            public String retryPeriod() {
                return retryPeriod;
            }
        };
    }
}
