package io.joulie.planner;

import io.joulie.api.v1alpha1.Profile;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;

import static io.joulie.planner.Fixtures.context;
import static io.joulie.planner.Fixtures.cordoned;
import static io.joulie.planner.Fixtures.count;
import static io.joulie.planner.Fixtures.perfNodes;
import static org.assertj.core.api.Assertions.assertThat;

class QueueAwarePolicyTest {

    @ParameterizedTest(name = "[{index}] n={0} base={1} min={2} max={3} perNode={4} P={5} -> {6}")
    @CsvSource({
            // n, base, min, max, perNode, P, hp
            // the cases
            "5, 0.6, 1, 5, 10, 0, 3",
            "5, 0.6, 1, 5, 10, 40, 4",
            "3, 0.34, 1, 3, 2, 2, 1",
            // demand: ceil(P / perNode)
            "5, 0.6, 1, 5, 10, 30, 3",
            "5, 0.6, 1, 5, 10, 31, 4",   // ceil(3.1) = 4
            "5, 0.6, 1, 5, 10, 41, 5",
            "5, 0.6, 1, 5, 10, 1000, 5", // capped by max
            "5, 0.0, 0, 5, 10, 1, 1",    // a single pod needs a node
            "10, 0.0, 0, 0, 3, 7, 3",
            // base share rounds half up
            "5, 0.5, 0, 5, 10, 0, 3",
            "4, 0.5, 0, 4, 10, 0, 2",
            // base clamped to [0, 1]
            "4, 1.7, 0, 10, 10, 0, 4",
            "4, -0.5, 0, 10, 10, 0, 0",
            // clamped to [min, max]
            "10, 0.1, 4, 10, 10, 0, 4",   // min raises
            "10, 0.9, 0, 6, 10, 0, 6",    // max lowers
            "10, 0.9, 0, 6, 1, 100, 6",   // max lowers demand too
            // then to [0, n]
            "3, 0.1, 5, 10, 10, 0, 3",    // min above n
            "3, 1.0, 0, 10, 1, 50, 3",
            "0, 0.6, 1, 5, 10, 40, 0",    // nothing eligible
            // normalisation: min < 0 -> 0
            "5, 0.0, -3, 5, 10, 0, 0",
            // max <= 0 -> n
            "5, 1.0, 0, 0, 10, 0, 5",
            "5, 1.0, 0, -1, 10, 0, 5",
            "5, 0.0, 0, 0, 1, 4, 4",
            // max < min -> min
            "10, 0.0, 4, 2, 10, 0, 4",
            "10, 1.0, 4, 2, 10, 0, 4",
            // perNode <= 0 -> 1
            "10, 0.0, 0, 10, 0, 3, 3",
            "10, 0.0, 0, 10, -5, 3, 3",
    })
    void performanceCount(int n, double base, int min, int max, int perNode, long p, int hp) {
        var policy = new QueueAwarePolicy(base, min, max, perNode);
        var plan = policy.plan(context(perfNodes(n), p));

        assertThat(plan.performanceNodes()).isEqualTo(hp);
        assertThat(plan.targets()).hasSize(n);
        assertThat(count(plan.targets(), Profile.PERFORMANCE)).isEqualTo(hp);
        assertThat(plan.policyName()).isEqualTo("queue_aware_v1");
    }

    @ParameterizedTest(name = "{0} of 5 cordoned, P={1} -> {2}")
    @CsvSource({
            "0, 0, 3",
            "2, 0, 2",   // n = 3 -> round(1.8) = 2
            "2, 40, 3",  // demand 4 clamped to n = 3
            "4, 0, 1",   // n = 1, min 1
    })
    void cordonedNodesAreNotCounted(int cordonedCount, long p, int hp) {
        List<ManagedNode> nodes = new ArrayList<>(perfNodes(5));
        for (int i = 0; i < cordonedCount; i++) {
            nodes.set(i, cordoned(nodes.get(i)));
        }
        var plan = new QueueAwarePolicy(0.6, 1, 5, 10).plan(context(nodes, p));

        assertThat(plan.performanceNodes()).isEqualTo(hp);
        assertThat(plan.targets()).hasSize(5 - cordonedCount);
    }

    @ParameterizedTest(name = "huge P={0} stays within n")
    @CsvSource({"9223372036854775", "2147483648", "2147483647"})
    void hugeDemandIsClampedToN(long p) {
        var plan = new QueueAwarePolicy(0.0, 0, 0, 1).plan(context(perfNodes(4), p));

        assertThat(plan.performanceNodes()).isEqualTo(4);
    }
}
