package io.joulie.operator.config;

import io.joulie.planner.PlannerSetting;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** An {@link OperatorConfig} over environment-variable names, starting from the documented defaults. */
public final class TestConfig implements OperatorConfig {
    private final Map<String, String> env = new HashMap<>();

    private String leaseDuration = "15s";
    private String renewDeadline = "10s";
    private String retryPeriod = "2s";

    public TestConfig() {
        PlannerSetting.ALL.stream().filter(PlannerSetting::inEnvironment).forEach(s -> env.put(s.env(), s.defaultText()));
        env.put("NODE_SELECTOR", "joulie.io/managed=true");
        env.put("RESERVED_LABEL_KEY", "joulie.io/reserved");
    }

    TestConfig withLease(String lease, String renew, String retry) {
        this.leaseDuration = lease;
        this.renewDeadline = renew;
        this.retryPeriod = retry;
        return this;
    }

    /** Sets a variable; {@code null} models a value that is absent. */
    public TestConfig with(String variable, String value) {
        if (!env.containsKey(variable)) {
            throw new IllegalArgumentException("unknown variable " + variable);
        }
        env.put(variable, value);
        return this;
    }

    /** The planner settings that are set, keyed as SmallRye keys them (property name without {@code joulie.}). */
    @Override
    public Map<String, String> planner() {
        Map<String, String> planner = new HashMap<>();
        for (PlannerSetting<?> s : PlannerSetting.ALL.stream().filter(PlannerSetting::inEnvironment).toList()) {
            if (env.get(s.env()) != null) {
                planner.put(DocumentedVariables.key(s), env.get(s.env()));
            }
        }
        return planner;
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
    public Optional<String> podName() {
        return Optional.empty();
    }

    @Override
    public Optional<String> podNamespace() {
        return Optional.empty();
    }

    @Override
    public boolean crdCheck() {
        return true;
    }

    @Override
    public java.time.Duration optionalCrdRecheck() {
        return java.time.Duration.ofMinutes(2);
    }

    @Override
    public AgentDefaults agent() {
        return () -> "quay.io/joulie/joulie-agent:test";
    }

    /** The placement webhook as configured by default, optionally with a URL instead of the Service. */
    public static Webhook webhook(boolean enabled, java.util.Optional<String> url) {
        return new Webhook() {
            @Override
            public boolean enabled() {
                return enabled;
            }

            @Override
            public int port() {
                return 9443;
            }

            @Override
            public String service() {
                return "joulie-operator-webhook";
            }

            @Override
            public java.util.Optional<String> url() {
                return url;
            }
        };
    }

    @Override
    public Webhook webhook() {
        return webhook(false, java.util.Optional.empty());
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
