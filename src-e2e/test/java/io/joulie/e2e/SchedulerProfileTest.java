package io.joulie.e2e;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.joulie.planner.EfficientLoadScore;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The kube-scheduler profile Joulie ships scores with the shape the twin and the placement scenario compute
 * ({@link EfficientLoadScore}), on CPU alone, and turns off only the balanced-allocation score (decision 210).
 */
class SchedulerProfileTest {
    static final Path REPO = Path.of(System.getProperty("repository.root", "..")).toAbsolutePath().normalize();

    @SuppressWarnings("unchecked")
    static Map<String, Object> profile() throws IOException {
        Map<String, Object> config = Serialization.unmarshal(
                Files.readString(REPO.resolve("examples/scheduler/kube-scheduler-config.yaml")), Map.class);
        assertThat(config).containsEntry("apiVersion", "kubescheduler.config.k8s.io/v1")
                .containsEntry("kind", "KubeSchedulerConfiguration");
        List<Map<String, Object>> profiles = (List<Map<String, Object>>) config.get("profiles");
        assertThat(profiles).hasSize(1);
        return profiles.get(0);
    }

    @Test
    @SuppressWarnings("unchecked")
    void theShippedShapeIsTheTwinsShape() throws IOException {
        Map<String, Object> profile = profile();
        List<Map<String, Object>> pluginConfig = (List<Map<String, Object>>) profile.get("pluginConfig");
        assertThat(pluginConfig).hasSize(1);
        assertThat(pluginConfig.get(0)).containsEntry("name", "NodeResourcesFit");
        Map<String, Object> strategy = (Map<String, Object>) ((Map<String, Object>) pluginConfig.get(0).get("args"))
                .get("scoringStrategy");
        assertThat(strategy).containsEntry("type", "RequestedToCapacityRatio");
        assertThat((List<Map<String, Object>>) strategy.get("resources")).containsExactly(Map.of("name", "cpu", "weight", 1));
        List<Map<String, Object>> shape = (List<Map<String, Object>>) ((Map<String, Object>) strategy.get("requestedToCapacityRatio"))
                .get("shape");
        assertThat(shape.stream().map(p -> new EfficientLoadScore.Point(((Number) p.get("utilization")).intValue(),
                ((Number) p.get("score")).intValue())).toList()).isEqualTo(EfficientLoadScore.SHAPE);
    }

    @Test
    @SuppressWarnings("unchecked")
    void itTurnsOffOnlyTheBalancedAllocationScoreAndKeepsTheDefaultSchedulerName() throws IOException {
        Map<String, Object> profile = profile();
        assertThat(profile).containsEntry("schedulerName", "default-scheduler");
        Map<String, Object> plugins = (Map<String, Object>) profile.get("plugins");
        assertThat(plugins).containsOnlyKeys("score");
        assertThat((Map<String, Object>) plugins.get("score")).containsOnlyKeys("disabled");
        assertThat((List<Object>) ((Map<String, Object>) plugins.get("score")).get("disabled"))
                .containsExactly(Map.of("name", "NodeResourcesBalancedAllocation"));
    }
}
