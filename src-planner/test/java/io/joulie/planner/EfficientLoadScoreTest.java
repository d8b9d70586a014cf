package io.joulie.planner;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class EfficientLoadScoreTest {
    static final long CORES = 56_000;

    @Test
    void theShapeIsKubeSchedulersBrokenLineTimesTen() {
        assertThat(EfficientLoadScore.atUtilization(0)).isEqualTo(20);
        assertThat(EfficientLoadScore.atUtilization(EfficientLoadScore.TARGET_PERCENT)).isEqualTo(100);
        assertThat(EfficientLoadScore.atUtilization(EfficientLoadScore.TARGET_PERCENT + 1)).isEqualTo(10);
        assertThat(EfficientLoadScore.atUtilization(100)).isZero();
        // integer arithmetic: 20 + 80 × 30 / 60 and 10 − 10 × 20 / 39 (truncated towards zero)
        assertThat(EfficientLoadScore.atUtilization(30)).isEqualTo(60);
        assertThat(EfficientLoadScore.atUtilization(81)).isEqualTo(10 - 200 / 39);
    }

    @Test
    void aNodeLeftAtOrUnderTheTargetBeatsEveryNodeTakenOverIt() {
        long pod = 4_000;
        long under = EfficientLoadScore.score(25_000, pod, CORES); // 51 %
        long empty = EfficientLoadScore.score(0, pod, CORES); // 7 %
        long over = EfficientLoadScore.score(33_000, pod, CORES); // 66 %
        long full = EfficientLoadScore.score(50_000, pod, CORES); // 96 %
        assertThat(under).isGreaterThan(empty);
        assertThat(empty).isGreaterThan(over);
        assertThat(over).isGreaterThan(full);
    }

    @Test
    void aPodThatDoesNotFitScoresAsAFullNode() {
        assertThat(EfficientLoadScore.score(55_000, 4_000, CORES)).isEqualTo(EfficientLoadScore.atUtilization(100));
        assertThat(EfficientLoadScore.score(0, 1, 0)).isEqualTo(EfficientLoadScore.atUtilization(100));
    }
}
