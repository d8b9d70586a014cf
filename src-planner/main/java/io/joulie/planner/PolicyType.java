package io.joulie.planner;

import java.util.Arrays;
import java.util.Optional;

/**
 * The base policies. Each has one name: the value of {@code spec.policy.type}, the name written to a
 * NodePowerProfile's {@code spec.policy.name} and into reasons ({@code selected for eco by queue_aware_v1}), the
 * simulator's baseline and the documentation's.
 */
public enum PolicyType {
    STATIC_PARTITION("static_partition"),
    QUEUE_AWARE_V1("queue_aware_v1"),
    DEMAND_SIZED_V1("demand_sized_v1"),
    RULE_SWAP_V1("rule_swap_v1");

    private final String policyName;

    PolicyType(String policyName) {
        this.policyName = policyName;
    }

    /** The policy's one name, e.g. {@code queue_aware_v1}. */
    public String policyName() {
        return policyName;
    }

    /** The names, comma-separated, for messages that list them. */
    public static String knownValues() {
        return String.join(", ", Arrays.stream(values()).map(PolicyType::policyName).toList());
    }

    public static Optional<PolicyType> fromConfig(String value) {
        String v = value == null ? "" : value.trim();
        return Arrays.stream(values()).filter(t -> t.policyName.equalsIgnoreCase(v)).findFirst();
    }
}
