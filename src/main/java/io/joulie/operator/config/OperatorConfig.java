package io.joulie.operator.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

import java.util.Optional;

/**
 * The operator's configuration. Every planner value is read as text and validated by
 * {@link SettingsParser} so that a bad value stops start-up with a message naming the environment
 * variable. application.properties maps each {@code joulie.*} property to its documented variable
 * ({@code joulie.policy-type=${POLICY_TYPE:static_partition}}), so either name works.
 */
@ConfigMapping(prefix = "joulie")
public interface OperatorConfig {
    @WithName("policy-type")
    String policyType();

    @WithName("static-hp-frac")
    String staticHpFrac();

    @WithName("queue-hp-base-frac")
    String queueHpBaseFrac();

    @WithName("queue-hp-min")
    String queueHpMin();

    @WithName("queue-hp-max")
    String queueHpMax();

    @WithName("queue-perf-per-hp-node")
    String queuePerfPerHpNode();

    /** Label selector of managed nodes; empty (NODE_SELECTOR="") manages every node. */
    @WithName("node-selector")
    Optional<String> nodeSelector();

    @WithName("reserved-label-key")
    String reservedLabelKey();

    @WithName("performance-cap-watts")
    String performanceCapWatts();

    @WithName("eco-cap-watts")
    String ecoCapWatts();

    /** Eco caps by node type, {@code type=watts,...}; empty: every node takes the eco cap. */
    @WithName("eco-cap-watts-by-type")
    Optional<String> ecoCapWattsByType();

    @WithName("demand-headroom-frac")
    String demandHeadroomFrac();

    @WithName("downgrade-escalation")
    String downgradeEscalation();

    @WithName("downgrade-timeout")
    String downgradeTimeout();

    @WithName("reconcile-interval")
    String reconcileInterval();

    /** This replica's Pod (downward API POD_NAME): the Lease identity and the object of operator Events. */
    @WithName("pod-name")
    Optional<String> podName();

    /** This replica's namespace (downward API POD_NAMESPACE). */
    @WithName("pod-namespace")
    Optional<String> podNamespace();

    LeaderElection leaderElection();

    /** Defaults of the agent DaemonSet that a Joulie resource does not set. */
    AgentDefaults agent();

    interface AgentDefaults {
        /** RELATED_IMAGE_AGENT: the agent image released with this operator. */
        String image();
    }

    interface LeaderElection {
        /** Off only for local runs with a single replica; the tick then always runs. */
        @WithDefault("true")
        boolean enabled();

        @WithDefault("joulie-operator-leader")
        String leaseName();

        /** Namespace of the Lease; defaults to the operator's own namespace (POD_NAMESPACE). */
        Optional<String> namespace();

        @WithDefault("15s")
        String leaseDuration();

        @WithDefault("10s")
        String renewDeadline();

        @WithDefault("2s")
        String retryPeriod();
    }
}
