package io.joulie.agent.host.ffm;

import io.joulie.agent.host.Nvml;
import io.joulie.agent.host.ffm.Downcalls.Downcall;
import io.joulie.testkit.FakeNvml;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ForeignRegistrationFeatureTest {
    @TempDir
    Path dir;

    /**
     * A downcall Libc or FfmNvml binds but the Feature does not register would fail only in the native image, at run
     * time. NVML binds when the library is loaded, so the fake one is.
     */
    @Test
    void theFeatureRegistersExactlyTheDowncallsLibcAndNvmlBind() throws Exception {
        try (Nvml ignored = FfmNvml.load(FakeNvml.install(dir, List.of(FakeNvml.Board.h100())).library().toString())) {
            List<Downcall> bound = new ArrayList<>(Libc.bound());
            bound.addAll(FfmNvml.bound());
            assertThat(ForeignRegistrationFeature.registrations()).containsExactlyInAnyOrderElementsOf(bound);
        }
        assertThat(Libc.bound()).extracting(Downcall::name).containsExactlyInAnyOrder("open", "pread", "pwrite", "ftruncate", "close");
        assertThat(FfmNvml.bound()).extracting(Downcall::name).containsExactlyInAnyOrder("nvmlInit_v2", "nvmlShutdown",
                "nvmlDeviceGetCount_v2", "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetName",
                "nvmlDeviceGetPowerManagementLimitConstraints", "nvmlDeviceGetPowerManagementDefaultLimit",
                "nvmlDeviceGetPowerManagementLimit", "nvmlDeviceSetPowerManagementLimit", "nvmlDeviceGetPowerUsage",
                "nvmlDeviceGetTotalEnergyConsumption");
    }
}
