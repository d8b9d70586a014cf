package io.joulie.harness;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JavaAppTest {
    @TempDir
    Path dir;

    /** A runnable jar of {@link Echo}, as the reactor packages the operator and the agent. */
    private Path echoJar() throws IOException, URISyntaxException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, Echo.class.getName());
        Path jar = dir.resolve("echo.jar");
        Path classFile = Path.of(Echo.class.getResource("Echo.class").toURI());
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
            out.putNextEntry(new JarEntry("io/joulie/harness/Echo.class"));
            Files.copy(classFile, out);
            out.closeEntry();
        }
        return jar;
    }

    @Test
    void startsTheJarWithItsEnvironmentAndFreePortsAndStopsItWithSigterm() throws Exception {
        Path logs = dir.resolve("logs");
        try (JavaApp app = JavaApp.start("echo", echoJar(), Map.of("GREETING", "hello"), logs)) {
            assertThat(app.name()).isEqualTo("echo");
            assertThat(app.log()).isEqualTo(logs.resolve("echo.log"));
            long deadline = System.nanoTime() + 30_000_000_000L;
            String health = null;
            while (health == null && System.nanoTime() < deadline) {
                health = app.get("/q/health");
                Thread.sleep(50);
            }
            assertThat(health).as("the management port the launcher chose serves").isEqualTo("UP");
            assertThat(app.logLines()).anySatisfy(l -> assertThat(l)
                    .contains("management=" + app.managementPort(), "greeting=hello").doesNotContain("http=null"));
            assertThat(app.rssKiB()[0]).isPositive();
            app.close();
            assertThat(app.isAlive()).isFalse();
            assertThat(app.process().exitValue()).as("SIGTERM").isEqualTo(143);
            assertThat(app.logLines()).contains("stopping on SIGTERM");
        }
    }

    @Test
    void portsGivenInTheEnvironmentAreKept() throws Exception {
        int port = JavaApp.freePort();
        try (JavaApp app = JavaApp.start("echo", echoJar(), Map.of("QUARKUS_MANAGEMENT_PORT", Integer.toString(port)), dir)) {
            assertThat(app.managementPort()).isEqualTo(port);
            app.kill();
            assertThat(app.isAlive()).isFalse();
            assertThat(app.logLines()).noneMatch(l -> l.contains("stopping"));
        }
    }

    @Test
    void aMissingJarIsNamedWithHowToBuildIt() {
        Path missing = dir.resolve("src/target/quarkus-app/quarkus-run.jar");
        assertThatThrownBy(() -> JavaApp.start("operator", missing, Map.of(), dir))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(missing.toString()).hasMessageContaining("./mvnw");
        assertThat(JavaApp.Packaged.OPERATOR.jar(dir)).isEqualTo(missing);
        assertThat(JavaApp.Packaged.AGENT.jar(dir)).isEqualTo(dir.resolve("src-agent/target/quarkus-app/quarkus-run.jar"));
    }

    @Test
    void apiServerEnvironments() {
        assertThat(JavaApp.apiServer("https://127.0.0.1:1/")).containsEntry("QUARKUS_KUBERNETES_CLIENT_API_SERVER_URL", "https://127.0.0.1:1/")
                .containsEntry("QUARKUS_KUBERNETES_CLIENT_TRUST_CERTS", "true");
        assertThat(JavaApp.kubeconfig(Path.of("k.yaml"))).containsEntry("KUBECONFIG", Path.of("k.yaml").toAbsolutePath().toString());
    }
}
