package io.joulie.e2e.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.joulie.e2e.image.JoulieImage;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ImageEntrypointTest {

    static JsonNode config(String json) throws Exception {
        return new ObjectMapper().readTree(json);
    }

    @Test
    void theOptionsBetweenJavaAndJarButTheImagesCacheAndTheImagesOwnVariables() throws Exception {
        JsonNode config = config("""
                {"config": {
                  "Env": ["PATH=/opt/java/openjdk/bin:/usr/bin", "JAVA_HOME=/opt/java/openjdk", "MALLOC_ARENA_MAX=2",
                          "JAVA_TOOL_OPTIONS=-Xlog:disable"],
                  "Entrypoint": ["java", "-XX:+UseSerialGC", "-Xss512k", "-XX:AOTCache=/deployments/app.aot", "-jar",
                                 "/deployments/quarkus-run.jar"]}}
                """);
        assertThat(ImageEntrypoint.jvmOptions(config, "image")).containsExactly("-XX:+UseSerialGC", "-Xss512k");
        assertThat(ImageEntrypoint.environment(config))
                .containsExactly(Map.entry("MALLOC_ARENA_MAX", "2"), Map.entry("JAVA_TOOL_OPTIONS", "-Xlog:disable"));
    }

    @Test
    void anEntrypointThatDoesNotRunAJarIsRefusedRatherThanReadAsNoOptions() throws Exception {
        JsonNode shell = config("""
                {"config": {"Entrypoint": ["/bin/sh", "-c", "java -Xss512k -jar app.jar"]}}""");
        assertThatThrownBy(() -> ImageEntrypoint.jvmOptions(shell, "image")).hasMessageContaining("does not run java ... -jar");
        assertThatThrownBy(() -> ImageEntrypoint.jvmOptions(config("{}"), "image")).hasMessageContaining("does not run java");
    }

    @Test
    void bothImagesStartTheJvmWithTheirSizingOptions() throws Exception {
        for (JoulieImage image : JoulieImage.values()) {
            assertThat(ImageEntrypoint.jvmOptions(image)).as(image.name())
                    .contains("--sun-misc-unsafe-memory-access=allow", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
                    .anyMatch(o -> o.startsWith("-XX:MaxRAMPercentage="));
            assertThat(ImageEntrypoint.environment(image)).as(image.name())
                    .containsEntry("MALLOC_ARENA_MAX", "2")
                    .doesNotContainKeys("PATH", "JAVA_HOME");
        }
    }
}
