package io.joulie.planner;

/** Builds the policy module that the settings ask for. */
public final class Policies {
    private Policies() {
    }

    public static PolicyModule create(PlannerSettings s) {
        return switch (s.policyType()) {
            case STATIC_PARTITION -> new StaticPartitionPolicy(s.staticHpFrac());
            case QUEUE_AWARE_V1 -> new QueueAwarePolicy(s.queueHpBaseFrac(), s.queueHpMin(), s.queueHpMax(),
                    s.queuePerfPerHpNode());
            case RULE_SWAP_V1 -> new RuleSwapPolicy(s.reconcileInterval());
        };
    }
}
