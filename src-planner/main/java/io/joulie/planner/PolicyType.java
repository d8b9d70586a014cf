package io.joulie.planner;

import java.util.Arrays;
import java.util.Optional;

/** The base policies, by their {@code POLICY_TYPE} value and the name written into NodePowerProfiles. */
public enum PolicyType {
    STATIC_PARTITION("static_partition", "static-partition-v1"),
    QUEUE_AWARE_V1("queue_aware_v1", "queue-aware-v1"),
    DEMAND_SIZED_V1("demand_sized_v1", "demand-sized-v1"),
    RULE_SWAP_V1("rule_swap_v1", "rule-swap-v1");

    private final String configValue;
    private final String policyName;

    PolicyType(String configValue, String policyName) {
        this.configValue = configValue;
        this.policyName = policyName;
    }

    public String configValue() {
        return configValue;
    }

    /** The name written to {@code spec.policy.name}. */
    public String policyName() {
        return policyName;
    }

    /** The {@code POLICY_TYPE} values, comma-separated, for messages that list them. */
    public static String knownValues() {
        return String.join(", ", Arrays.stream(values()).map(PolicyType::configValue).toList());
    }

    public static Optional<PolicyType> fromConfig(String value) {
        String v = value == null ? "" : value.trim();
        return Arrays.stream(values()).filter(t -> t.configValue.equalsIgnoreCase(v)).findFirst();
    }
}
