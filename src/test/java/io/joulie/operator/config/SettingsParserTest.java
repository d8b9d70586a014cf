package io.joulie.operator.config;

import io.joulie.api.text.ConfigurationException;
import io.joulie.api.v1alpha1.PowerState;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.Escalation;
import io.joulie.planner.ManagedNode;
import io.joulie.planner.Planner;
import io.joulie.planner.PlannerSettings;
import io.joulie.planner.PolicyType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SettingsParserTest {

    @Test
    void documentedDefaults() {
        var parsed = SettingsParser.parse(new TestConfig());

        assertThat(parsed.settings()).isEqualTo(PlannerSettings.defaults());
        assertThat(parsed.unknownPolicy()).isEmpty();
        assertThat(parsed.reservedLabelKey()).isEqualTo("joulie.io/reserved");
        assertThat(parsed.nodeSelector().test(Map.of("joulie.io/managed", "true"))).isTrue();
        assertThat(parsed.nodeSelector().test(Map.of("joulie.io/managed", "false"))).isFalse();
    }

    @Test
    void allValuesAreRead() {
        var parsed = SettingsParser.parse(new TestConfig()
                .with("POLICY_TYPE", "queue_aware_v1")
                .with("STATIC_HP_FRAC", "0.25")
                .with("QUEUE_HP_BASE_FRAC", " 0.4 ")
                .with("QUEUE_HP_MIN", "2")
                .with("QUEUE_HP_MAX", "8")
                .with("QUEUE_PERF_PER_HP_NODE", "4")
                .with("PERFORMANCE_CAP_WATTS", "450.5")
                .with("ECO_CAP_WATTS", "90")
                .with("DOWNGRADE_ESCALATION", "evict")
                .with("DOWNGRADE_TIMEOUT", "1h30m")
                .with("RECONCILE_INTERVAL", "15s")
                .with("NODE_SELECTOR", "")
                .with("RESERVED_LABEL_KEY", " example.com/keep-out "));

        assertThat(parsed.settings()).isEqualTo(PlannerSettings.defaults().toBuilder().policyType(PolicyType.QUEUE_AWARE_V1)
                .staticHpFrac(0.25).queueHpBaseFrac(0.4).queueHpMin(2).queueHpMax(8).queuePerfPerHpNode(4)
                .performanceCapWatts(java.util.OptionalDouble.of(450.5)).ecoCapWatts(java.util.OptionalDouble.of(90)).escalation(Escalation.EVICT).downgradeTimeout(Duration.ofMinutes(90))
                .reconcileInterval(Duration.ofSeconds(15)).build());
        assertThat(parsed.reservedLabelKey()).isEqualTo("example.com/keep-out");
        assertThat(parsed.nodeSelector().test(Map.of())).isTrue();
    }

    @ParameterizedTest(name = "POLICY_TYPE \"{0}\" -> {1}")
    @CsvSource({
            "static_partition, STATIC_PARTITION",
            "queue_aware_v1, QUEUE_AWARE_V1",
            "rule_swap_v1, RULE_SWAP_V1",
            "QUEUE_AWARE_V1, QUEUE_AWARE_V1",
            "demand_sized_v1, DEMAND_SIZED_V1",
            "' rule_swap_v1 ', RULE_SWAP_V1",
    })
    void knownPolicies(String value, PolicyType type) {
        var parsed = SettingsParser.parse(new TestConfig().with("POLICY_TYPE", value));

        assertThat(parsed.settings().policyType()).isEqualTo(type);
        assertThat(parsed.unknownPolicy()).isEmpty();
    }

    @Test
    void demandSizingSettingsAreRead() {
        var parsed = SettingsParser.parse(new TestConfig().with("POLICY_TYPE", "demand_sized_v1")
                .with("DEMAND_HEADROOM_FRAC", "0.35").with("ECO_CAP_WATTS_BY_TYPE", " dell-r640=260 , dell-r940=507.5"));
        assertThat(parsed.settings().demandHeadroomFrac()).isEqualTo(0.35);
        assertThat(parsed.settings().ecoCapWattsByType()).containsExactly(Map.entry("dell-r640", 260.0), Map.entry("dell-r940", 507.5));
        assertThat(SettingsParser.parse(new TestConfig()).settings().ecoCapWattsByType()).as("none by default").isEmpty();
        assertThat(SettingsParser.parse(new TestConfig()).settings().demandHeadroomFrac()).isEqualTo(0.2);
    }

    @ParameterizedTest(name = "escalation \"{0}\" -> {1}")
    @CsvSource({"hold, HOLD", "force, FORCE", "evict, EVICT", "FORCE, FORCE", "' evict', EVICT"})
    void escalations(String value, Escalation expected) {
        assertThat(SettingsParser.parse(new TestConfig().with("DOWNGRADE_ESCALATION", value)).settings().escalation())
                .isEqualTo(expected);
    }

    @ParameterizedTest(name = "unknown POLICY_TYPE \"{0}\" falls back to static_partition")
    @CsvSource({"queue_aware_v2", "static-partition", "'   '", "''"})
    void unknownPolicyFallsBackToStaticPartition(String value) {
        var parsed = SettingsParser.parse(new TestConfig().with("POLICY_TYPE", value).with("STATIC_HP_FRAC", "0.5"));

        assertThat(parsed.settings().policyType()).isEqualTo(PolicyType.STATIC_PARTITION);
        assertThat(parsed.unknownPolicy()).contains(value);

        // 4 nodes at 0.5 -> 2 performance
        List<ManagedNode> nodes = IntStream.rangeClosed(1, 4)
                .mapToObj(i -> new ManagedNode("n" + i, Map.of(), false, PowerState.ActivePerformance, Instant.EPOCH, List.of()))
                .toList();
        var tick = new Planner(parsed.settings()).plan(new ClusterContext(Instant.EPOCH, nodes, 0));
        assertThat(tick.plan().policyName()).isEqualTo("static_partition");
        assertThat(tick.plan().performanceNodes()).isEqualTo(2);
        // the downgrades' first tick: they drain (StateGuard)
        assertThat(tick.transitions()).filteredOn(t -> t.to() == PowerState.DrainingPerformance).hasSize(2);
    }

    @ParameterizedTest(name = "{0}={1} is rejected")
    @CsvSource(delimiter = '|', value = {
            // variable | value | property | problem
            "STATIC_HP_FRAC | abc | joulie.static-hp-frac | is not a number",
            "STATIC_HP_FRAC | '' | joulie.static-hp-frac | is not a number",
            "STATIC_HP_FRAC | NaN | joulie.static-hp-frac | is not a number",
            "STATIC_HP_FRAC | Infinity | joulie.static-hp-frac | is not a number",
            "QUEUE_HP_BASE_FRAC | 60% | joulie.queue-hp-base-frac | is not a number",
            "QUEUE_HP_MIN | 1.5 | joulie.queue-hp-min | is not a whole number",
            "QUEUE_HP_MAX | lots | joulie.queue-hp-max | is not a whole number",
            "QUEUE_HP_MAX | 99999999999 | joulie.queue-hp-max | is not a whole number",
            "QUEUE_PERF_PER_HP_NODE | ten | joulie.queue-perf-per-hp-node | is not a whole number",
            "ECO_CAP_WATTS | -5 | joulie.eco-cap-watts | greater than 0 watts",
            "ECO_CAP_WATTS | 0 | joulie.eco-cap-watts | greater than 0 watts",
            "ECO_CAP_WATTS | 120W | joulie.eco-cap-watts | is not a number",
            "PERFORMANCE_CAP_WATTS | -1 | joulie.performance-cap-watts | greater than 0 watts",
            "DOWNGRADE_TIMEOUT | soon | joulie.downgrade-timeout | not a duration",
            "DOWNGRADE_TIMEOUT | '' | joulie.downgrade-timeout | empty duration",
            "DOWNGRADE_TIMEOUT | PT-5M | joulie.downgrade-timeout | must not be negative",
            "DOWNGRADE_ESCALATION | maybe | joulie.downgrade-escalation | must be hold, force or evict",
            "DOWNGRADE_ESCALATION | '' | joulie.downgrade-escalation | must be hold, force or evict",
            "RECONCILE_INTERVAL | 0s | joulie.reconcile-interval | must be greater than 0",
            "RECONCILE_INTERVAL | 1 minute | joulie.reconcile-interval | not a duration",
            "NODE_SELECTOR | role in (a | joulie.node-selector | unbalanced parentheses",
            "NODE_SELECTOR | a=b=c | joulie.node-selector | not a valid label value",
            "NODE_SELECTOR | 'bad key=x' | joulie.node-selector | not a valid label key",
            "RESERVED_LABEL_KEY | '  ' | joulie.reserved-label-key | must be a valid label key",
            "RESERVED_LABEL_KEY | 'two words' | joulie.reserved-label-key | must be a valid label key",
            "DEMAND_HEADROOM_FRAC | -0.1 | joulie.demand-headroom-frac | must be at least 0",
            "DEMAND_HEADROOM_FRAC | lots | joulie.demand-headroom-frac | is not a number",
            "ECO_CAP_WATTS_BY_TYPE | r640 | joulie.eco-cap-watts-by-type | is not type=watts",
            "ECO_CAP_WATTS_BY_TYPE | 'r640=200,bad type=1' | joulie.eco-cap-watts-by-type | '''bad type'' is not a node type'",
            "ECO_CAP_WATTS_BY_TYPE | r640=0 | joulie.eco-cap-watts-by-type | greater than 0 watts",
            "ECO_CAP_WATTS_BY_TYPE | r640=fast | joulie.eco-cap-watts-by-type | is not a number",
    })
    void malformedValuesNameVariableAndProperty(String variable, String value, String property, String problem) {
        var config = new TestConfig().with(variable, value);

        assertThatThrownBy(() -> SettingsParser.parse(config))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining(variable + " (" + property + ")")
                .hasMessageContaining("'" + value + "'")
                .hasMessageContaining(problem);
    }

    @ParameterizedTest(name = "absent {0} is reported, not a crash")
    @CsvSource({
            "STATIC_HP_FRAC, joulie.static-hp-frac",
            "QUEUE_HP_MIN, joulie.queue-hp-min",
            "ECO_CAP_WATTS, joulie.eco-cap-watts",
            "DOWNGRADE_TIMEOUT, joulie.downgrade-timeout",
            "DOWNGRADE_ESCALATION, joulie.downgrade-escalation",
            "RESERVED_LABEL_KEY, joulie.reserved-label-key",
    })
    void absentValues(String variable, String property) {
        var config = new TestConfig().with(variable, null);

        assertThatThrownBy(() -> SettingsParser.parse(config))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining(variable + " (" + property + ")");
    }

    @Test
    void everyErrorIsReportedAtOnce() {
        var config = new TestConfig()
                .with("STATIC_HP_FRAC", "abc")
                .with("ECO_CAP_WATTS", "-5")
                .with("DOWNGRADE_TIMEOUT", "soon")
                .with("DOWNGRADE_ESCALATION", "maybe")
                .with("NODE_SELECTOR", "a in (b");

        assertThatThrownBy(() -> SettingsParser.parse(config))
                .isInstanceOf(ConfigurationException.class)
                .satisfies(e -> {
                    String message = e.getMessage();
                    assertThat(message).startsWith("Invalid Joulie operator configuration");
                    assertThat(message.lines().filter(l -> l.startsWith("  - ")))
                            .hasSize(5)
                            .anySatisfy(l -> assertThat(l).startsWith("  - STATIC_HP_FRAC (joulie.static-hp-frac) = 'abc'"))
                            .anySatisfy(l -> assertThat(l).startsWith("  - ECO_CAP_WATTS (joulie.eco-cap-watts) = '-5'"))
                            .anySatisfy(l -> assertThat(l).startsWith("  - DOWNGRADE_TIMEOUT (joulie.downgrade-timeout) = 'soon'"))
                            .anySatisfy(l -> assertThat(l).startsWith("  - DOWNGRADE_ESCALATION (joulie.downgrade-escalation) = 'maybe'"))
                            .anySatisfy(l -> assertThat(l).startsWith("  - NODE_SELECTOR (joulie.node-selector) = 'a in (b'"));
                });
    }

    @Test
    void anUnknownPolicyIsNotAnErrorButDoesNotHideOthers() {
        var config = new TestConfig().with("POLICY_TYPE", "nope").with("QUEUE_HP_MIN", "x");

        assertThatThrownBy(() -> SettingsParser.parse(config))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("QUEUE_HP_MIN")
                .hasMessageNotContaining("POLICY_TYPE");
    }

    @ParameterizedTest(name = "out-of-range {0}={1} is accepted (the policy clamps it)")
    @CsvSource({
            "STATIC_HP_FRAC, 1.5",
            "STATIC_HP_FRAC, -0.2",
            "QUEUE_HP_BASE_FRAC, 2",
            "QUEUE_HP_MIN, -3",
            "QUEUE_HP_MAX, 0",
            "QUEUE_PERF_PER_HP_NODE, 0",
            "QUEUE_PERF_PER_HP_NODE, -1",
            "DOWNGRADE_TIMEOUT, 0s",
    })
    void outOfRangeNumbersAreNotErrors(String variable, String value) {
        assertThat(SettingsParser.parse(new TestConfig().with(variable, value)).settings()).isNotNull()
                .isNotEqualTo(PlannerSettings.defaults());
    }

    @Test
    void anEmptyNodeSelectorManagesEveryNode() {
        var parsed = SettingsParser.parse(new TestConfig().with("NODE_SELECTOR", ""));

        assertThat(parsed.nodeSelector().test(Map.of())).isTrue();
        assertThat(parsed.nodeSelector().test(Map.of("kubernetes.io/hostname", "n1"))).isTrue();
    }

    @Test
    void leaseTimingsAreParsedAndMustBeOrdered() {
        var lease = SettingsParser.parse(new TestConfig().withLease("30s", "20s", "5s")).lease();
        assertThat(lease.leaseDuration()).hasSeconds(30);
        assertThat(lease.renewDeadline()).hasSeconds(20);
        assertThat(lease.retryPeriod()).hasSeconds(5);

        assertThatThrownBy(() -> SettingsParser.parse(new TestConfig().withLease("10s", "15s", "2s")))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("retry-period (2s) < renew-deadline (15s) < lease-duration (10s)");
        assertThatThrownBy(() -> SettingsParser.parse(new TestConfig().withLease("forever", "10s", "2s")))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("joulie.leader-election.lease-duration = 'forever'");
    }
}
