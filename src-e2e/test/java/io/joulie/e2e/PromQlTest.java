package io.joulie.e2e;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PromQlTest {

    @Test
    void aggregationsFunctionsRangesAndGrafanaVariablesAreNotMetricNames() {
        assertThat(PromQl.metricNames("sum by (kind, result) (rate(joulie_agent_actions_total{node=~\"$node\"}[$__rate_interval]))"))
                .containsExactly("joulie_agent_actions_total");
        assertThat(PromQl.metricNames("histogram_quantile(0.99, sum by (le) (rate(joulie_tick_duration_seconds_bucket[5m])))"))
                .containsExactly("joulie_tick_duration_seconds_bucket");
    }

    @Test
    void vectorMatchingLabelListsAndKeywordsAreDropped() {
        assertThat(PromQl.metricNames("time() - joulie_last_tick_timestamp_seconds > 300 and on (instance) joulie_leader == 1"))
                .containsExactly("joulie_last_tick_timestamp_seconds", "joulie_leader");
        assertThat(PromQl.metricNames("a * on (instance) group_left (pod) b unless ignoring(x) c > bool 1 offset 5m"))
                .containsExactly("a", "b", "c");
        assertThat(PromQl.metricNames("max without (node) (x) or topk(3, y) or count_values(\"v\", z)"))
                .containsExactly("x", "y", "z");
    }

    @Test
    void stringsAndLabelMatchersAreSkippedWhateverTheyContain() {
        assertThat(PromQl.metricNames("label_replace(up{job=\"a{b}\", x='y\\'z'}, \"dst\", \"$1\", \"src\", `(.*)`)"))
                .containsExactly("up");
        assertThat(PromQl.metricNames("rate(m[5m:30s]) + 1e3 + 0.5 + .5 + 0x1f")).containsExactly("m");
    }

    @Test
    void grafanaLabelValuesNamesTheMetricNotTheLabel() {
        assertThat(PromQl.metricNames("label_values(joulie_agent_package_power_watts, node)"))
                .containsExactly("joulie_agent_package_power_watts");
        assertThat(PromQl.metricNames("label_values(joulie_nodes{state=\"eco\"}, state)")).containsExactly("joulie_nodes");
    }

    @Test
    void malformedExpressionsAreReportedNotSkipped() {
        assertThatThrownBy(() -> PromQl.metricNames("rate(x{job=\"a}[5m])")).hasMessageContaining("unterminated string");
        assertThatThrownBy(() -> PromQl.metricNames("rate(x[5m)")).hasMessageContaining("unbalanced '['");
    }
}
