package io.joulie.operator.config;

import io.joulie.planner.PlannerSetting;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithKeys;
import io.smallrye.config.WithName;
import io.smallrye.config.WithParentName;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The operator's configuration. The planner settings are the rows of {@link PlannerSetting}: read as text under
 * their {@code joulie.*} property ({@link #planner()}) and validated by {@link SettingsParser}, so that a bad value
 * stops start-up with a message naming the environment variable. {@link DocumentedVariables} gives each property
 * its documented variable ({@code POLICY_TYPE} for {@code joulie.policy-type}) and default, so either name works.
 */
@ConfigMapping(prefix = "joulie")
public interface OperatorConfig {
    /** The planner settings' text by property name without {@code joulie.}: {@code policy-type} → {@code queue_aware_v1}. */
    @WithParentName
    @WithKeys(PlannerKeys.class)
    Map<String, String> planner();

    /** Label selector of managed nodes; empty (NODE_SELECTOR="") manages every node. */
    @WithName("node-selector")
    Optional<String> nodeSelector();

    @WithName("reserved-label-key")
    String reservedLabelKey();

    /** This replica's Pod (downward API POD_NAME): the Lease identity and the object of operator Events. */
    @WithName("pod-name")
    Optional<String> podName();

    /** This replica's namespace (downward API POD_NAMESPACE). */
    @WithName("pod-namespace")
    Optional<String> podNamespace();

    LeaderElection leaderElection();

    /**
     * Whether the {@code joulie.io} CRDs installed are checked for this project's marker before the operator acts
     * (docs/install.md, "Coming from the Go Joulie"). Off only where the CRDs come from the Operator SDK's generator
     * without the install's marker (the mock API server of the tests).
     */
    @WithName("crd-check")
    @WithDefault("true")
    boolean crdCheck();

    /** How often, at most, a missing optional CRD (Prometheus Operator, OpenShift SCC) is looked for again. */
    @WithName("optional-crd-recheck")
    @WithDefault("PT2M")
    Duration optionalCrdRecheck();

    /** Defaults of the agent DaemonSet that a Joulie resource does not set. */
    AgentDefaults agent();

    /** The placement webhook this replica serves (decision 209). */
    Webhook webhook();

    interface Webhook {
        /**
         * Whether this replica serves the placement webhook (HTTPS on {@link #port()}) and the active Joulie resource
         * registers it (with spec.placement.ecoPreference not false).
         */
        @WithDefault("true")
        boolean enabled();

        /** The HTTPS port the webhook listens on. */
        @WithDefault("9443")
        int port();

        /** The Service the API server calls the webhook through (made by the operator, in its namespace). */
        @WithDefault("joulie-operator-webhook")
        String service();

        /**
         * The URL the API server calls instead of the Service, e.g. https://127.0.0.1:9443/mutate-pods for an operator
         * run outside the cluster (development, the e2e suite); its host is added to the certificate's names.
         */
        Optional<String> url();
    }

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

    /** The planner settings' property names under {@code joulie.}: the one set SmallRye maps (an unknown key is refused). */
    final class PlannerKeys implements Supplier<Iterable<String>> {
        @Override
        public Iterable<String> get() {
            return PlannerSetting.ALL.stream().filter(PlannerSetting::inEnvironment).map(DocumentedVariables::key).toList();
        }
    }
}
