package io.joulie.agent.host.ffm;

import io.joulie.agent.host.Nvml;
import io.joulie.agent.host.NvmlException;
import io.joulie.agent.host.NvmlReturn;
import io.joulie.testkit.FakeNvml;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** NVML through the real FFM code, against the fake libnvidia-ml.so the test build compiles. */
class FfmNvmlTest {
    @TempDir
    Path dir;

    @Test
    void readsTheBoardsAndWritesExactlyTheMilliwattsAsked() throws IOException {
        FakeNvml fake = FakeNvml.install(dir, List.of(FakeNvml.Board.h100(), FakeNvml.Board.l40s().withEnergyMj(5_000_000_000L)));
        try (Nvml nvml = FfmNvml.load(fake.library().toString())) {
            assertThat(nvml.deviceCount()).isEqualTo(2);
            assertThat(nvml.name(0)).isEqualTo("NVIDIA H100 80GB HBM3");
            assertThat(nvml.name(1)).isEqualTo("NVIDIA L40S");
            assertThat(nvml.constraints(0)).isEqualTo(new Nvml.Constraints(200_000, 700_000));
            assertThat(nvml.defaultLimitMw(1)).isEqualTo(350_000);
            assertThat(nvml.limitMw(0)).isEqualTo(700_000);
            assertThat(nvml.powerMw(1)).isEqualTo(120_000);
            assertThat(nvml.energyMj(1)).as("an unsigned long long beyond 32 bits").isEqualTo(5_000_000_000L);

            nvml.setLimitMw(0, 437_500);
            assertThat(nvml.limitMw(0)).isEqualTo(437_500);
        }
        assertThat(fake.limitMw(0)).isEqualTo(437_500);
        assertThat(fake.calls()).containsExactly("nvmlInit_v2", "nvmlDeviceSetPowerManagementLimit 0 437500", "nvmlShutdown");
    }

    @Test
    void aReturnCodeBecomesAnExceptionNamingTheCallTheBoardAndTheMeaning() throws IOException {
        FakeNvml fake = FakeNvml.install(dir, List.of(FakeNvml.Board.h100()));
        fake.fail(FakeNvml.SET_LIMIT, 0, FakeNvml.NVML_ERROR_NO_PERMISSION);
        try (Nvml nvml = FfmNvml.load(fake.library().toString())) {
            assertThatThrownBy(() -> nvml.setLimitMw(0, 300_000)).isInstanceOfSatisfying(NvmlException.class, e -> {
                assertThat(e.error()).isEqualTo(NvmlReturn.ERROR_NO_PERMISSION);
                assertThat(e.error().refused()).isTrue();
                assertThat(e.getMessage()).isEqualTo("GPU 0: nvmlDeviceSetPowerManagementLimit: NVML_ERROR_NO_PERMISSION (4): "
                        + "no permission (setting a power limit needs root or CAP_SYS_ADMIN on the host's driver)");
            });
            assertThatThrownBy(() -> nvml.setLimitMw(0, 900_000)).isInstanceOf(NvmlException.class);
            assertThatThrownBy(() -> nvml.name(3)).isInstanceOfSatisfying(NvmlException.class, e ->
                    assertThat(e.getMessage()).startsWith("GPU 3: nvmlDeviceGetHandleByIndex_v2: NVML_ERROR_INVALID_ARGUMENT (2)"));
        }
        assertThat(fake.limitMw(0)).isEqualTo(700_000);
        assertThat(fake.limitsSet()).isEmpty();
    }

    @Test
    void aFailedInitialisationIsReportedAndTheLibraryLeftAlone() {
        FakeNvml fake = FakeNvml.install(dir, List.of(FakeNvml.Board.h100()));
        fake.fail("nvmlInit_v2", -1, FakeNvml.NVML_ERROR_DRIVER_NOT_LOADED);
        assertThatThrownBy(() -> FfmNvml.load(fake.library().toString())).isInstanceOfSatisfying(NvmlException.class, e ->
                assertThat(e.getMessage()).isEqualTo("nvmlInit_v2: NVML_ERROR_DRIVER_NOT_LOADED (9): the NVIDIA driver is not loaded"));
    }

    @Test
    void aLibraryThatCannotBeLoadedOrIsNotNvmlSaysSo() {
        Path missing = dir.resolve("nowhere/libnvidia-ml.so.1");
        assertThatThrownBy(() -> FfmNvml.load(missing.toString())).isInstanceOf(IOException.class)
                .hasMessageContaining("cannot load " + missing);
        // a library the loader finds by name, but not NVML
        assertThatThrownBy(() -> FfmNvml.load("libm.so.6")).isInstanceOf(IOException.class)
                .hasMessage("libm.so.6 has no nvmlShutdown (an NVIDIA driver too old for this agent, or not NVML)");
    }
}
