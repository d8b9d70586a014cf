package io.joulie.operator.telemetry;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Without the prometheus binary the telemetry tests fail and say how to install it; they never pass silently. */
class PrometheusServerTest {
    @Test
    void aMissingBinaryFailsWithTheInstallCommand(@TempDir Path empty) {
        assertThatThrownBy(() -> PrometheusServer.locate(List.of(empty.resolve("prometheus").toString()), empty.toString()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'prometheus' binary is not installed")
                .hasMessageContaining("apt-get install -y prometheus");
    }

    @Test
    void theBinaryIsFoundOnThePath(@TempDir Path bin) throws Exception {
        Path fake = Files.createFile(bin.resolve("prometheus"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));

        assertThat(PrometheusServer.locate(List.of(), "/nonexistent:" + bin)).isEqualTo(fake);
    }
}
