package io.joulie.planner;

import java.util.Optional;

/** Builds the policy module that the settings ask for. */
public final class Policies {
    private Policies() {
    }

    /** The counting policy of these settings; rule_swap_v1 counts nothing, so it has none. */
    public static Optional<CountingPolicy> counting(PlannerSettings s) {
        return create(s) instanceof CountingPolicy c ? Optional.of(c) : Optional.empty();
    }

    public static PolicyModule create(PlannerSettings s) {
        return switch (s.policyType()) {
            case STATIC_PARTITION -> new StaticPartitionPolicy(s.staticHpFrac());
            case QUEUE_AWARE_V1 -> new QueueAwarePolicy(s.queueHpBaseFrac(), s.queueHpMin(), s.queueHpMax(),
                    s.queuePerfPerHpNode());
            case DEMAND_SIZED_V1 -> new DemandSizedPolicy(s.demandHeadroomFrac(), s.queueHpMin(), s.queueHpMax(),
                    s.queuePerfPerHpNode());
            case RULE_SWAP_V1 -> new RuleSwapPolicy(s.reconcileInterval());
        };
    }
}
