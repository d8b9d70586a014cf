package io.joulie.e2e.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ImageEntrypointTest {

    @Test
    void theOptionsBetweenJavaAndJarAndTheImagesVariables(@TempDir Path dir) throws Exception {
        Path dockerfile = Files.writeString(dir.resolve("Dockerfile"), """
                FROM eclipse-temurin:25-jre
                ENV MALLOC_ARENA_MAX=2
                ENV JAVA_TOOL_OPTIONS=-Xlog:disable
                # ENV COMMENTED=out
                ENTRYPOINT ["java", "-XX:+UseSerialGC", "-Xss512k", "-jar", "/deployments/quarkus-run.jar"]
                """);
        assertThat(ImageEntrypoint.jvmOptions(dockerfile)).containsExactly("-XX:+UseSerialGC", "-Xss512k");
        assertThat(ImageEntrypoint.environment(dockerfile))
                .containsExactly(java.util.Map.entry("MALLOC_ARENA_MAX", "2"), java.util.Map.entry("JAVA_TOOL_OPTIONS", "-Xlog:disable"));
    }

    @Test
    void aShellFormEntrypointIsRefusedRatherThanReadAsNoOptions(@TempDir Path dir) throws Exception {
        Path dockerfile = Files.writeString(dir.resolve("Dockerfile"), "FROM x\nENTRYPOINT java -Xss512k -jar app.jar\n");
        assertThatThrownBy(() -> ImageEntrypoint.jvmOptions(dockerfile)).hasMessageContaining("no exec-form ENTRYPOINT");
    }

    @Test
    void bothImagesStartTheJvmWithTheirSizingOptions() throws Exception {
        for (String image : new String[] {"src/main/docker/Dockerfile.jvm", "src-agent/main/docker/Dockerfile.jvm"}) {
            Path dockerfile = RealCluster.REPO.resolve(image);
            assertThat(ImageEntrypoint.jvmOptions(dockerfile)).as(image)
                    .contains("--sun-misc-unsafe-memory-access=allow", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
                    .anyMatch(o -> o.startsWith("-XX:MaxRAMPercentage="));
            assertThat(ImageEntrypoint.environment(dockerfile)).as(image).containsEntry("MALLOC_ARENA_MAX", "2");
        }
    }
}
