package io.joulie.sim;

import io.joulie.sim.Targets.Outcome;
import io.joulie.sim.Targets.Run;
import io.joulie.sim.Targets.Target;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class TargetsTest {

    /** One seed's four runs by hand: energies of A least-allocated, A efficient-load, D, D + parking; D's perf mean/p95. */
    private static Map<Run, Outcome> seed(double a, double ae, double d, double p, double dMean, double dP95, double dViolations) {
        Map<Run, Outcome> runs = new EnumMap<>(Run.class);
        runs.put(Run.A_DEFAULT, new Outcome(a, 100, 200, 0, 10, 10, RunResult.Parking.NONE));
        runs.put(Run.A_EFFICIENT, new Outcome(ae, 100, 200, 0, 10, 10, RunResult.Parking.NONE));
        runs.put(Run.D_EFFICIENT, new Outcome(d, dMean, dP95, dViolations, 10, 10, RunResult.Parking.NONE));
        runs.put(Run.D_PARKING, new Outcome(p, dMean, dP95 * 1.02, 0, 10, 10, new RunResult.Parking(4, 3, 1.5)));
        return runs;
    }

    private static Targets byHand() {
        Map<Long, Map<Run, Outcome>> seeds = new LinkedHashMap<>();
        seeds.put(1L, seed(100, 98, 94, 90, 100.5, 204, 0));
        seeds.put(2L, seed(100, 99, 97, 92, 101.5, 206, 0));
        return new Targets("hand", seeds);
    }

    @Test
    void measuresAreTheSavingsAndRatiosTheIssueNames() {
        Map<Run, Outcome> s = seed(100, 98, 94, 90, 100.5, 204, 0);
        assertThat(Target.JOULIE_VS_DEFAULT.of(s)).isCloseTo(-6.0, within(1e-9));
        assertThat(Target.JOULIE_OWN_PART.of(s)).isCloseTo(100 * (94.0 / 98 - 1), within(1e-9));
        assertThat(Target.PARKING_VS_DEFAULT.of(s)).isCloseTo(-10.0, within(1e-9));
        assertThat(Target.PERFORMANCE_MEAN.of(s)).isCloseTo(1.005, within(1e-9));
        assertThat(Target.PERFORMANCE_P95.of(s)).isCloseTo(1.02, within(1e-9));
        assertThat(Target.PARKING_P95.of(s)).isCloseTo(1.0404, within(1e-9));
    }

    @Test
    void goalsAreMetAtTheirEdgeAndNotPastIt() {
        assertThat(Target.JOULIE_VS_DEFAULT.met(-5.0)).isTrue();
        assertThat(Target.JOULIE_VS_DEFAULT.met(-4.99)).isFalse();
        assertThat(Target.JOULIE_OWN_PART.met(-3.5)).isTrue();
        assertThat(Target.JOULIE_OWN_PART.met(-3.49)).isFalse();
        assertThat(Target.PARKING_VS_DEFAULT.met(-9.0)).isTrue();
        assertThat(Target.PARKING_VS_DEFAULT.met(-8.9)).isFalse();
        assertThat(Target.PERFORMANCE_MEAN.met(1.01)).isTrue();
        assertThat(Target.PERFORMANCE_MEAN.met(1.011)).isFalse();
        assertThat(Target.PERFORMANCE_P95.met(1.05)).isTrue();
        assertThat(Target.PERFORMANCE_P95.met(1.051)).isFalse();
        assertThat(Target.VIOLATIONS.met(0)).isTrue();
        assertThat(Target.VIOLATIONS.met(1)).isFalse();
        // no performance-only jobs: the ratio is 0 / 0 and says nothing against the goal
        assertThat(Target.PERFORMANCE_P95.met(Double.NaN)).isTrue();
    }

    @Test
    void rangeOverSeedsAndEverySeedMustMeetIt() {
        Targets t = byHand();
        assertThat(t.min(Target.JOULIE_VS_DEFAULT)).isCloseTo(-6.0, within(1e-9));
        assertThat(t.max(Target.JOULIE_VS_DEFAULT)).isCloseTo(-3.0, within(1e-9));
        assertThat(t.met(Target.JOULIE_VS_DEFAULT)).as("seed 2 saves only 3 %").isFalse();
        assertThat(t.met(Target.PARKING_VS_DEFAULT)).as("seed 2 parks to -8 %").isFalse();
        assertThat(t.met(Target.PERFORMANCE_MEAN)).as("seed 2 is 1.015x").isFalse();
        assertThat(t.met(Target.PERFORMANCE_P95)).isTrue();
        assertThat(t.met(Target.VIOLATIONS)).isTrue();
        assertThat(t.lines()).hasSize(Target.values().length).anySatisfy(l -> assertThat(l)
                .startsWith(Target.JOULIE_VS_DEFAULT.title()).contains("-6.0 % … -3.0 %").endsWith("NOT met)"));
        assertThat(t.markdown()).contains("| " + Target.VIOLATIONS.title() + " | 0 s | 0 s | 0 s | yes |")
                .contains("| " + Target.JOULIE_VS_DEFAULT.title() + " | ≤ −5.0 % | -6.0 % | -3.0 % | **no** |")
                .contains("| 2 | " + Run.D_EFFICIENT.title() + " | 97.00 | -3.0 % | -2.0 % | 1.015x / 1.030x | 0 | 10 / 10 | – |")
                .contains("| 2 | " + Run.D_PARKING.title() + " | 92.00 | -8.0 % | -7.1 % | 1.015x / 1.051x | 0 | 10 / 10 | 1.5 / 3 |");
        List<String> csv = t.csv().lines().toList();
        assertThat(csv).hasSize(1 + 2 * Run.values().length);
        int columns = csv.getFirst().split(",").length;
        assertThat(csv).allSatisfy(l -> assertThat(l.split(",", -1)).hasSize(columns));
        assertThat(csv.get(7)).startsWith("hand,2,D_EFFICIENT,97.0000,-3.0000,-2.0202,").endsWith(",0,0,0.00");
        assertThat(csv.get(8)).startsWith("hand,2,D_PARKING,92.0000,").endsWith(",10,10,4,3,1.50");
    }

    @Test
    void eachRunIsTheScenarioWithItsScoreParkingAndSeed() {
        Map<String, String> small = Map.of("workload.jobs", "60", "cluster.nodes", "4");
        Targets t = Targets.run("published", small, List.of(3L, 4L), 2);
        assertThat(t.seeds()).containsOnlyKeys(3L, 4L);
        for (long seed : List.of(3L, 4L)) {
            for (Run run : Run.values()) {
                Map<String, String> o = new LinkedHashMap<>(small);
                o.put("workload.seed", String.valueOf(seed));
                o.putAll(run.overrides());
                SimConfig config = Main.config("published", o);
                RunResult alone = Simulation.standalone(config, Workload.of(config.workload()), run == Run.A_DEFAULT
                        || run == Run.A_EFFICIENT ? Baseline.A : Baseline.D).run();
                assertThat(t.seeds().get(seed).get(run).energyKWh()).as(seed + " " + run).isEqualTo(alone.energyKWh());
                assertThat(t.seeds().get(seed).get(run).jobsCompleted()).isEqualTo(alone.jobsTotal());
            }
        }
        // the scores differ somewhere, else the test would not tell the runs apart
        assertThat(t.seeds().values()).anySatisfy(r -> assertThat(r.get(Run.A_EFFICIENT).energyKWh())
                .isNotEqualTo(r.get(Run.A_DEFAULT).energyKWh()));
    }

    @Test
    void seedsParseAsListsAndRanges() {
        assertThat(Targets.parseSeeds("1-5")).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(Targets.parseSeeds("42")).containsExactly(42L);
        assertThat(Targets.parseSeeds("7, 3,10-11")).containsExactly(7L, 3L, 10L, 11L);
        assertThatThrownBy(() -> Targets.parseSeeds("5-1")).hasMessageContaining("must run upwards");
        assertThatThrownBy(() -> Targets.parseSeeds("one")).hasMessageContaining("--seeds takes whole numbers");
        assertThatThrownBy(() -> Targets.parseSeeds("1,1")).hasMessageContaining("distinct");
    }

    @Test
    void writesCsvMarkdownAndPlot(@TempDir Path dir) throws IOException {
        Path md = Report.write(byHand(), dir);
        assertThat(md).isEqualTo(dir.resolve("targets.md"));
        Report.TARGET_FILES.forEach(f -> assertThat(dir.resolve(f)).isNotEmptyFile());
        assertThat(Files.readString(md)).contains("![targets.png](targets.png)");
        BufferedImage img = ImageIO.read(dir.resolve("targets.png").toFile());
        assertThat(img).isNotNull();
        assertThat(img.getWidth()).isEqualTo(1000);
    }

    @Test
    void benchWritesTheTargetsBesideTheReport(@TempDir Path dir) throws IOException {
        int rc = Main.run(new String[]{"bench", "--scenario", "published", "--out", dir.toString(), "--seeds", "2,3", "workload.jobs=30"});
        assertThat(rc).isZero();
        assertThat(Files.readString(dir.resolve("published/targets.md"))).contains("Seeds 2, 3.");
        assertThat(Files.readAllLines(dir.resolve("published/targets.csv"))).hasSize(1 + 2 * Run.values().length);
        assertThatThrownBy(() -> Main.run(new String[]{"bench", "--seeds", "x"})).hasMessageContaining("--seeds");
        // the targets alone: the same files, without the comparison's report
        Path alone = dir.resolve("alone");
        assertThat(Main.run(new String[]{"targets", "--scenario", "published", "--out", alone.toString(), "--seeds", "2,3",
                "workload.jobs=30"})).isZero();
        assertThat(alone.resolve("published/targets.csv")).hasSameTextualContentAs(dir.resolve("published/targets.csv"));
        assertThat(alone.resolve("published/report.md")).doesNotExist();
    }
}
