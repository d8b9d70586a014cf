package io.joulie.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;

/** The fixture behaves as NVML documents it, so that the agent's tests against it mean something. */
class FakeNvmlTest {
    @TempDir
    Path dir;

    /** Calls the library directly, as little FFM as it takes. */
    static final class Calls implements AutoCloseable {
        final Arena arena = Arena.ofConfined();
        final SymbolLookup lookup;
        final Linker linker = Linker.nativeLinker();

        Calls(Path library) {
            lookup = SymbolLookup.libraryLookup(library, arena);
        }

        MethodHandle fn(String name, FunctionDescriptor descriptor) {
            return linker.downcallHandle(lookup.find(name).orElseThrow(), descriptor);
        }

        int init() throws Throwable {
            return (int) fn("nvmlInit_v2", FunctionDescriptor.of(JAVA_INT)).invokeExact();
        }

        MemorySegment handle(int index, int[] rc) throws Throwable {
            MemorySegment out = arena.allocate(ADDRESS);
            rc[0] = (int) fn("nvmlDeviceGetHandleByIndex_v2", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS)).invokeExact(index, out);
            return out.get(ADDRESS, 0);
        }

        int setLimit(MemorySegment device, int mw) throws Throwable {
            return (int) fn("nvmlDeviceSetPowerManagementLimit", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT)).invokeExact(device, mw);
        }

        @Override
        public void close() {
            arena.close();
        }
    }

    @Test
    void boardsAndFailuresRoundTripThroughTheStateFile() {
        FakeNvml nvml = FakeNvml.install(dir, List.of(FakeNvml.Board.h100(), FakeNvml.Board.l40s()));
        nvml.fail(FakeNvml.SET_LIMIT, 1, FakeNvml.NVML_ERROR_NO_PERMISSION);
        nvml.board(0, FakeNvml.Board.h100().withPowerMw(123_000));

        assertThat(nvml.boards()).containsExactly(FakeNvml.Board.h100().withPowerMw(123_000), FakeNvml.Board.l40s());
        assertThat(nvml.agentEnvironment()).containsEntry("JOULIE_NVML_LIBRARY", dir.resolve("libnvidia-ml.so.1").toString());
    }

    @Test
    void theLibrarySetsLimitsWithinTheConstraintsOnlyAndLogsWhatItDid() throws Throwable {
        FakeNvml nvml = FakeNvml.install(dir, List.of(FakeNvml.Board.h100(), FakeNvml.Board.l40s()));
        nvml.fail(FakeNvml.SET_LIMIT, 1, FakeNvml.NVML_ERROR_NO_PERMISSION);
        try (Calls c = new Calls(nvml.library())) {
            int[] rc = new int[1];
            c.handle(0, rc);
            assertThat(rc[0]).as("a call before nvmlInit_v2").isEqualTo(FakeNvml.NVML_ERROR_UNINITIALIZED);
            assertThat(c.init()).isZero();
            MemorySegment h100 = c.handle(0, rc);
            assertThat(rc[0]).isZero();
            c.handle(2, rc);
            assertThat(rc[0]).as("an index past the count").isEqualTo(FakeNvml.NVML_ERROR_INVALID_ARGUMENT);

            assertThat(c.setLimit(h100, 450_000)).isZero();
            assertThat(c.setLimit(h100, 150_000)).as("below the board's minimum").isEqualTo(FakeNvml.NVML_ERROR_INVALID_ARGUMENT);
            MemorySegment l40s = c.handle(1, rc);
            assertThat(c.setLimit(l40s, 200_000)).as("injected").isEqualTo(FakeNvml.NVML_ERROR_NO_PERMISSION);
        }
        assertThat(nvml.limitMw(0)).isEqualTo(450_000);
        assertThat(nvml.limitMw(1)).isEqualTo(350_000);
        assertThat(nvml.calls()).containsExactly("nvmlInit_v2", "nvmlDeviceSetPowerManagementLimit 0 450000");
        assertThat(nvml.limitsSet()).containsExactly("0 450000");
    }
}
