package io.joulie.planner;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** The performance-node bounds queue_aware_v1 and demand_sized_v1 share, normalised as docs/policies.md says. */
class BoundsTest {
    @ParameterizedTest(name = "[{index}] min={0} max={1} n={2} hp={3} -> upper {4}, planned {5}")
    @CsvSource({
            // min, max, n, hp, upper, clamped
            "1, 5, 10, 3, 5, 3",      // inside
            "1, 5, 10, 0, 5, 1",      // min raises
            "1, 5, 10, 9, 5, 5",      // max lowers
            "-3, 5, 10, -2, 5, 0",    // min < 0 counts as 0
            "0, 0, 10, 12, 10, 10",   // max <= 0: every eligible node
            "0, -1, 4, 7, 4, 4",
            "6, 2, 10, 0, 6, 6",      // max < min: raised to min
            "6, 2, 4, 0, 6, 4",       // then within [0, n]: no more nodes than there are
            "2, 1000000, 3, " + Long.MAX_VALUE + ", 1000000, 3",
    })
    void clampsIntoTheBoundsThenIntoTheCluster(int min, int max, int n, long hp, int upper, int clamped) {
        Bounds b = new Bounds(min, max);

        assertThat(b.min()).isGreaterThanOrEqualTo(0);
        assertThat(b.upper(n)).isEqualTo(upper);
        assertThat(b.clamp(hp, n)).isEqualTo(clamped);
    }
}
