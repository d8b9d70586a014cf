package io.joulie.planner;

import io.joulie.api.v1alpha1.Profile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;

import static io.joulie.planner.Fixtures.context;
import static io.joulie.planner.Fixtures.cordoned;
import static io.joulie.planner.Fixtures.count;
import static io.joulie.planner.Fixtures.perfNodes;
import static org.assertj.core.api.Assertions.assertThat;

class StaticPartitionPolicyTest {

    @ParameterizedTest(name = "{0} nodes at frac {1} -> {2} performance")
    @CsvSource({
            // n, frac, hp
            "5, 0.6, 3",      // the example
            "5, 0.5, 3",      // 2.5 rounds half up
            "4, 0.5, 2",
            "3, 0.5, 2",      // 1.5 -> 2
            "1, 0.5, 1",      // 0.5 -> 1
            "10, 0.15, 2",    // 1.5 exactly on the decimal value (not 1.4999... in binary)
            "10, 0.25, 3",    // 2.5 -> 3
            "10, 0.24, 2",
            "7, 0.0, 0",
            "7, 1.0, 7",
            "5, 1.5, 5",      // clamped to 1
            "5, -0.2, 0",     // clamped to 0
            "5, NaN, 0",      // NaN counts as 0
            "0, 0.6, 0",      // no nodes
            "3, 0.34, 1",     // 1.02
            "3, 0.5, 2",
            "100, 0.005, 1",  // 0.5 -> 1
            "100, 0.004, 0",
    })
    void performanceCount(int n, double frac, int hp) {
        var plan = new StaticPartitionPolicy(frac).plan(context(perfNodes(n), 0));

        assertThat(plan.performanceNodes()).isEqualTo(hp);
        assertThat(plan.targets()).hasSize(n);
        assertThat(count(plan.targets(), Profile.PERFORMANCE)).isEqualTo(hp);
        assertThat(count(plan.targets(), Profile.ECO)).isEqualTo(n - hp);
        assertThat(plan.policyName()).isEqualTo("static_partition");
    }

    @ParameterizedTest(name = "{0} nodes, {1} cordoned, frac {2} -> {3} performance of eligible")
    @CsvSource({
            "5, 0, 0.6, 3",
            "5, 1, 0.6, 2",   // n = 4 -> round(2.4) = 2
            "5, 2, 0.5, 2",   // n = 3 -> round(1.5) = 2
            "5, 5, 0.6, 0",   // nothing eligible
            "4, 3, 1.0, 1",
    })
    void cordonedNodesAreNotCountedNorTargeted(int total, int cordonedCount, double frac, int hp) {
        List<ManagedNode> nodes = new ArrayList<>(perfNodes(total));
        for (int i = 0; i < cordonedCount; i++) {
            nodes.set(i, cordoned(nodes.get(i)));
        }
        var plan = new StaticPartitionPolicy(frac).plan(context(nodes, 0));

        assertThat(plan.performanceNodes()).isEqualTo(hp);
        assertThat(plan.targets()).hasSize(total - cordonedCount);
        for (int i = 0; i < cordonedCount; i++) {
            assertThat(plan.targets()).doesNotContainKey(nodes.get(i).name());
        }
        assertThat(count(plan.targets(), Profile.PERFORMANCE)).isEqualTo(hp);
    }

    @Test
    void performanceOnlyPodsDoNotChangeTheCount() {
        var plan = new StaticPartitionPolicy(0.2).plan(context(perfNodes(5), 1_000));

        assertThat(plan.performanceNodes()).isEqualTo(1);
    }

    @Test
    void summaryShowsTheArithmetic() {
        var plan = new StaticPartitionPolicy(0.6).plan(context(perfNodes(5), 0));

        assertThat(plan.summary()).contains("5").contains("0.6").endsWith("=3");
    }
}
