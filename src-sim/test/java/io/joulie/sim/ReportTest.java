package io.joulie.sim;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReportTest {

    @Test
    void writesCsvMarkdownAndPlots(@TempDir Path dir) throws IOException {
        Comparison c = Comparison.run("tiny", SimConfig.of(Map.of("workload.jobs", "40")), 2);
        Path md = Report.write(c, dir);
        assertThat(md).isEqualTo(dir.resolve("report.md"));
        for (String f : Report.FILES) {
            assertThat(dir.resolve(f)).isNotEmptyFile();
        }
        List<String> summary = Files.readAllLines(dir.resolve("summary.csv"));
        assertThat(summary).hasSize(9);
        assertThat(summary.get(1)).startsWith("A,all performance,");
        assertThat(summary.get(3)).startsWith("C,queue_aware_v1,");
        assertThat(summary.get(4)).startsWith("D,demand_sized_v1,");
        assertThat(summary.get(5)).startsWith("H,hindsight optimum,");
        assertThat(summary.get(6)).startsWith("U,clairvoyant constructive,");
        assertThat(summary.get(7)).startsWith("LB,lower bound,");
        assertThat(summary.get(8)).startsWith("LBT,time-indexed bound,");
        assertThat(summary.getFirst()).endsWith(",action_space");
        assertThat(summary.get(5)).contains("\"with hindsight: performance-node count per tick and node type; each type");
        int columns = summary.getFirst().split(",").length;
        assertThat(summary).allSatisfy(line -> assertThat(line.split(",", -1)).hasSize(columns));
        assertThat(Files.readAllLines(dir.resolve("timeseries.csv")))
                .hasSize(1 + c.results().values().stream().mapToInt(r -> r.series().size()).sum());
        assertThat(Files.readString(md)).contains("**Headline.**").contains("violations").contains("energy to finish the same 40 jobs")
                .contains("| lower bound (θ) |").contains("## Bracketing the optimum").contains("| H hindsight optimum | feasible schedule |")
                .contains("| U clairvoyant constructive | feasible schedule |").contains("The optimum over the bounds' action set lies between").contains("| time-indexed lower bound |").contains("Power saved while busy").contains("![power.png](power.png)");
        for (String f : Report.FILES) {
            if (f.endsWith(".png")) {
                BufferedImage img = ImageIO.read(dir.resolve(f).toFile());
                assertThat(img).as(f).isNotNull();
                assertThat(img.getWidth()).isEqualTo(1000);
            }
        }
    }

    @Test
    void paramsTableListsEveryParameter() {
        String table = Main.paramsTable();
        Params.table().keySet().forEach(k -> assertThat(table).contains("`" + k + "`"));
    }

    @Test
    void commandLineMistakesAreNamed() {
        assertThatThrownBy(() -> Main.run(new String[]{"bench", "--scenario", "week"})).hasMessageContaining("unknown scenario 'week'")
                .hasMessageContaining("published, demo, day, day-mixed, hetero, all");
        assertThatThrownBy(() -> Main.run(new String[]{"bench", "--threads", "zero"})).hasMessageContaining("--threads must be");
        assertThatThrownBy(() -> Main.run(new String[]{"watch", "--baseline", "X"})).hasMessageContaining("--baseline must be one of B, C, D");
        assertThatThrownBy(() -> Main.run(new String[]{"bench", "cluster.nodez=3"})).hasMessageContaining("unknown parameter 'cluster.nodez'");
        assertThatThrownBy(() -> Main.run(new String[]{"simulate"})).hasMessageContaining("unknown command 'simulate'");
        assertThatThrownBy(() -> Main.run(new String[]{"bench", "--out"})).hasMessageContaining("needs a value");
    }

    @Test
    void benchCommandWritesTheScenarioReport(@TempDir Path dir) {
        int rc = Main.run(new String[]{"bench", "--scenario", "published", "--out", dir.toString(), "workload.jobs=30"});
        assertThat(rc).isZero();
        assertThat(dir.resolve("published/report.md")).isNotEmptyFile();
    }
}
