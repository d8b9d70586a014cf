package io.joulie.agent.host;

import io.joulie.agent.host.CapResult.Outcome;
import io.joulie.agent.host.OriginalsStore.Stored;
import io.joulie.agent.host.ffm.FfmNvml;
import io.joulie.testkit.FakeNvml;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The GPU cap policy through the real FFM code on the fake libnvidia-ml.so: an H100 (200..700 W, at 700 W) and an
 * L40S (100..350 W, at 350 W), the limits the library holds read back after every step.
 */
class NvmlGpusTest {
    @TempDir
    Path dir;

    final List<Gpus> opened = new ArrayList<>();
    FakeNvml fake;

    @AfterEach
    void close() {
        opened.forEach(Gpus::close);
    }

    Gpus open(OriginalsStore<Map<Integer, Long>> originals) throws IOException {
        Gpus gpus = NvmlGpus.open(FfmNvml.load(fake.library().toString()),
                limitsNow -> KeptOriginals.open(OriginalsKind.GPU, originals, Optional.empty(), limitsNow, line -> { }));
        opened.add(gpus);
        return gpus;
    }

    /** The boards' limits a store keeps, without the boot id. */
    static Optional<Map<Integer, Long>> kept(OriginalsStore<Map<Integer, Long>> store) throws IOException {
        return store.load().map(Stored::originals);
    }

    Gpus twoBoards() throws IOException {
        fake = FakeNvml.install(dir, List.of(FakeNvml.Board.h100(), FakeNvml.Board.l40s()));
        return open(OriginalsStore.memory());
    }

    @Test
    void theBoardsFoundAtStartWithTheirConstraints() throws IOException {
        Gpus gpus = twoBoards();
        assertThat(gpus.unavailable()).isEmpty();
        assertThat(gpus.boards()).containsExactly(new GpuBoard(0, "NVIDIA H100 80GB HBM3", 200_000, 700_000, 700_000),
                new GpuBoard(1, "NVIDIA L40S", 100_000, 350_000, 350_000));
        assertThat(gpus.read(1)).isEqualTo(new GpuReading(1, 350_000, 120_000, 500_000));
    }

    /** A board older than Volta has no energy counter: its limit and power are still read, and it is still capped. */
    @Test
    void aBoardWithoutAnEnergyCounterIsStillReadAndCapped() throws IOException {
        Gpus gpus = twoBoards();
        fake.fail("nvmlDeviceGetTotalEnergyConsumption", 1, FakeNvml.NVML_ERROR_NOT_SUPPORTED);
        assertThat(gpus.read(1)).isEqualTo(new GpuReading(1, 350_000, 120_000, java.util.OptionalLong.empty()));
        assertThat(gpus.read(0).energyMj()).isPresent();
        assertThat(gpus.apply(new CapRequest.Watts(300)).outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(fake.limitMw(1)).isEqualTo(300_000);

        fake.clearFailures();
        fake.fail("nvmlDeviceGetTotalEnergyConsumption", 1, FakeNvml.NVML_ERROR_GPU_IS_LOST);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> gpus.read(1)).isInstanceOf(NvmlException.class)
                .hasMessageContaining("NVML_ERROR_GPU_IS_LOST");
    }

    @Test
    void aPercentIsResolvedAgainstEachBoardsOwnMaximum() throws IOException {
        Gpus gpus = twoBoards();
        GpuCapResult r = gpus.apply(new CapRequest.Percent(60));

        assertThat(r.outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(r.message()).isEqualTo("applied 60 % of each board's maximum as power limit on 2 boards");
        assertThat(fake.limitsSet()).containsExactly("0 420000", "1 210000");
        assertThat(r.observedMw()).isEqualTo(Map.of(0, 420_000L, 1, 210_000L));
    }

    @Test
    void wattsPerBoardAreClampedToEachBoardsConstraints() throws IOException {
        Gpus gpus = twoBoards();
        GpuCapResult r = gpus.apply(new CapRequest.Watts(500));

        assertThat(r.outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(r.message()).isEqualTo("applied 500 W per GPU as power limit on 2 boards; "
                + "GPU 1: 500000 mW clamped to board max 350000 mW");
        assertThat(fake.limitsSet()).containsExactly("0 500000", "1 350000");

        assertThat(gpus.apply(new CapRequest.Watts(150)).message()).endsWith("GPU 0: 150000 mW clamped to board min 200000 mW");
        assertThat(fake.limitMw(0)).isEqualTo(200_000);
        assertThat(fake.limitMw(1)).isEqualTo(150_000);
    }

    @Test
    void badRequestsReachNoBoard() throws IOException {
        Gpus gpus = twoBoards();
        assertThat(gpus.apply(new CapRequest.Percent(120))).satisfies(r -> {
            assertThat(r.outcome()).isEqualTo(Outcome.BLOCKED);
            assertThat(r.message()).isEqualTo("cap 120.0 % is not a percent in (0, 100]");
        });
        assertThat(gpus.apply(new CapRequest.Percent(0)).outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(gpus.apply(new CapRequest.Watts(Double.NaN)).outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(gpus.apply(new CapRequest.Watts(-3)).outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(fake.limitsSet()).isEmpty();
    }

    @Test
    void aRefusalOnOneBoardBlocksAndPutsBackTheBoardsAlreadyWritten() throws IOException {
        Gpus gpus = twoBoards();
        fake.fail(FakeNvml.SET_LIMIT, 1, FakeNvml.NVML_ERROR_NO_PERMISSION);

        GpuCapResult r = gpus.apply(new CapRequest.Watts(300));

        assertThat(r.outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(r.message()).startsWith("GPU 1: nvmlDeviceSetPowerManagementLimit: NVML_ERROR_NO_PERMISSION (4)")
                .endsWith("; rolled back GPU [0] to their previous limits");
        assertThat(fake.limitsSet()).containsExactly("0 300000", "0 700000");
        assertThat(r.writtenMw()).isEmpty();
        assertThat(r.observedMw()).isEqualTo(Map.of(0, 700_000L, 1, 350_000L));
    }

    @Test
    void anyOtherFailureIsAnError() throws IOException {
        Gpus gpus = twoBoards();
        fake.fail(FakeNvml.SET_LIMIT, 0, FakeNvml.NVML_ERROR_UNKNOWN);

        GpuCapResult r = gpus.apply(new CapRequest.Watts(300));

        assertThat(r.outcome()).isEqualTo(Outcome.ERROR);
        assertThat(r.message()).isEqualTo("GPU 0: nvmlDeviceSetPowerManagementLimit: NVML_ERROR_UNKNOWN (999): "
                + "an internal driver error occurred; nothing was written");
    }

    @Test
    void aBoardNvmlCountsButCannotReachBlocksEveryCap() throws IOException {
        fake = FakeNvml.install(dir, List.of(FakeNvml.Board.h100(), FakeNvml.Board.h100()));
        fake.fail("nvmlDeviceGetHandleByIndex_v2", 1, FakeNvml.NVML_ERROR_GPU_IS_LOST);
        Gpus gpus = open(OriginalsStore.memory());

        assertThat(gpus.boards()).extracting(GpuBoard::index).containsExactly(0);
        GpuCapResult r = gpus.apply(new CapRequest.Percent(50));

        assertThat(r.outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(r.message()).isEqualTo("GPU 1: nvmlDeviceGetHandleByIndex_v2: NVML_ERROR_GPU_IS_LOST (15): the board has "
                + "fallen off the bus or is otherwise inaccessible; no board's limit is written");
        assertThat(fake.limitsSet()).isEmpty();
    }

    @Test
    void theLimitsInForceBeforeTheFirstWriteAreKeptAndRestoreWritesThemBackAndForgetsThem() throws IOException {
        fake = FakeNvml.install(dir, List.of(FakeNvml.Board.h100().withLimitMw(650_000), FakeNvml.Board.l40s()));
        OriginalsStore<Map<Integer, Long>> originals = OriginalsStore.memory();
        Gpus gpus = open(originals);
        assertThat(kept(originals)).as("nothing written, nothing kept").isEmpty();
        assertThat(gpus.held()).isFalse();

        gpus.apply(new CapRequest.Percent(40));
        assertThat(kept(originals)).contains(Map.of(0, 650_000L, 1, 350_000L));
        assertThat(gpus.held()).isTrue();
        GpuCapResult r = gpus.restore();

        assertThat(r.outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(r.message()).isEqualTo("restored the GPU limits found before the first write on 2 boards");
        assertThat(fake.limitMw(0)).isEqualTo(650_000);
        assertThat(fake.limitMw(1)).isEqualTo(350_000);
        assertThat(kept(originals)).isEmpty();
        assertThat(gpus.held()).isFalse();
    }

    /** A kept original outside the board's constraints (a tampered file) is not written; the other board is restored. */
    @Test
    void aKeptOriginalOutsideTheBoardsConstraintsIsNotWrittenBack() throws IOException {
        fake = FakeNvml.install(dir, List.of(FakeNvml.Board.h100().withLimitMw(300_000), FakeNvml.Board.l40s().withLimitMw(150_000)));
        OriginalsStore<Map<Integer, Long>> originals = OriginalsStore.memory();
        originals.save(new Stored<>(Optional.empty(), Map.of(0, 9_000_000L, 1, 350_000L)));
        Gpus gpus = open(originals);
        GpuCapResult r = gpus.restore();

        assertThat(r.outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(r.message()).isEqualTo("restore failed: GPU 0: the original 9000000 mW is outside the board's constraints "
                + "[200000, 700000] mW; not written back, and the board is left as found; check the kept originals and set the limit by hand");
        assertThat(fake.limitMw(0)).as("left as found").isEqualTo(300_000);
        assertThat(fake.limitMw(1)).isEqualTo(350_000);
        assertThat(kept(originals)).as("kept, as not everything is back").isPresent();
    }

    @Test
    void afterARestoreTheNextWriteKeepsTheLimitsInForceThenAgain() throws IOException {
        fake = FakeNvml.install(dir, List.of(FakeNvml.Board.h100(), FakeNvml.Board.l40s()));
        OriginalsStore<Map<Integer, Long>> originals = OriginalsStore.memory();
        Gpus gpus = open(originals);
        gpus.apply(new CapRequest.Watts(300));
        gpus.restore();
        // someone sets board 0 between the agent's restore and its next cap: that is what must come back
        fake.board(0, fake.board(0).withLimitMw(600_000));

        gpus.apply(new CapRequest.Percent(50));
        assertThat(kept(originals)).as("kept again before the write, so a crash now loses nothing")
                .contains(Map.of(0, 600_000L, 1, 350_000L));
        gpus.restore();

        assertThat(fake.limitMw(0)).isEqualTo(600_000);
        assertThat(fake.limitMw(1)).isEqualTo(350_000);
    }

    @Test
    void restoreWithNothingWrittenWritesNothing() throws IOException {
        Gpus gpus = twoBoards();
        GpuCapResult r = gpus.restore();

        assertThat(r.outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(r.message()).isEqualTo("nothing to restore: no GPU limit written since the start or the last restore");
        assertThat(fake.limitsSet()).isEmpty();
    }

    @Test
    void anAttemptThatLeftEveryBoardAsFoundKeepsNothing() throws IOException {
        fake = FakeNvml.install(dir, List.of(FakeNvml.Board.h100(), FakeNvml.Board.l40s()));
        OriginalsStore<Map<Integer, Long>> originals = OriginalsStore.memory();
        Gpus gpus = open(originals);
        fake.fail(FakeNvml.SET_LIMIT, 1, FakeNvml.NVML_ERROR_NO_PERMISSION);

        assertThat(gpus.apply(new CapRequest.Watts(300)).outcome()).isEqualTo(Outcome.BLOCKED);

        assertThat(kept(originals)).as("board 0 rolled back: the boards are as found").isEmpty();
        assertThat(gpus.held()).isFalse();
    }

    @Test
    void aWriteWhoseOriginalsCannotBeKeptDoesNotHappen() throws IOException {
        fake = FakeNvml.install(dir, List.of(FakeNvml.Board.h100()));
        Gpus gpus = open(new OriginalsStore<>() {
            @Override
            public Optional<Stored<Map<Integer, Long>>> load() {
                return Optional.empty();
            }

            @Override
            public void save(Stored<Map<Integer, Long>> limitsMw) throws IOException {
                throw new IOException("read-only file system");
            }

            @Override
            public void clear() {
            }

            @Override
            public String describe() {
                return "a store under test";
            }
        });

        GpuCapResult r = gpus.apply(new CapRequest.Watts(300));

        assertThat(r.outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(r.message()).isEqualTo("cannot keep the GPU limits in force in a store under test (read-only file system); "
                + "nothing was written, as they could not be put back");
        assertThat(fake.limitsSet()).isEmpty();
    }

    @Test
    void anUnreadableStoreLeavesTheBoardsAlone() throws IOException {
        fake = FakeNvml.install(dir, List.of(FakeNvml.Board.h100()));
        Gpus gpus = open(new OriginalsStore<>() {
            @Override
            public Optional<Stored<Map<Integer, Long>>> load() throws IOException {
                throw new IOException("not an originals file");
            }

            @Override
            public void save(Stored<Map<Integer, Long>> limitsMw) {
            }

            @Override
            public void clear() {
            }

            @Override
            public String describe() {
                return "a store under test";
            }
        });

        assertThat(gpus.unavailable()).contains("the GPU originals in a store under test cannot be read (not an originals file); "
                + "this agent writes no GPU limit until it is restarted with them readable (or, after checking the limits, without "
                + "the file)");
        assertThat(gpus.apply(new CapRequest.Watts(300)).outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(fake.limitsSet()).isEmpty();
    }

    @Test
    void afterACrashTheLimitsKeptByTheEarlierRunAreTheOnesPutBack() throws IOException {
        fake = FakeNvml.install(dir, List.of(FakeNvml.Board.h100(), FakeNvml.Board.l40s()));
        OriginalsStore<Map<Integer, Long>> survivesTheProcess = OriginalsStore.memory();
        Gpus first = open(survivesTheProcess);
        first.apply(new CapRequest.Percent(50));
        // the first agent dies here without restoring; the next one finds the boards capped
        Gpus second = open(survivesTheProcess);
        assertThat(((NvmlGpus) second).originalsMw()).contains(Map.of(0, 700_000L, 1, 350_000L));
        second.apply(new CapRequest.Percent(60));
        assertThat(kept(survivesTheProcess)).as("not replaced by the first run's caps").contains(Map.of(0, 700_000L, 1, 350_000L));

        second.restore();

        assertThat(fake.limitMw(0)).isEqualTo(700_000);
        assertThat(fake.limitMw(1)).isEqualTo(350_000);
    }

    /** As for the CPU: originals whose file cannot be removed stay held, and the next restore writes them again. */
    @Test
    void aRestoreWhoseFileCannotBeRemovedKeepsTheOriginalsHeld() throws IOException {
        fake = FakeNvml.install(dir, List.of(FakeNvml.Board.h100()));
        OriginalsStore<Map<Integer, Long>> memory = OriginalsStore.memory();
        Gpus gpus = open(new OriginalsStore<>() {
            @Override
            public Optional<Stored<Map<Integer, Long>>> load() throws IOException {
                return memory.load();
            }

            @Override
            public void save(Stored<Map<Integer, Long>> limitsMw) throws IOException {
                memory.save(limitsMw);
            }

            @Override
            public void clear() throws IOException {
                throw new IOException("read-only file system");
            }

            @Override
            public String describe() {
                return "a store under test";
            }
        });
        gpus.apply(new CapRequest.Watts(300));

        GpuCapResult r = gpus.restore();

        assertThat(r.outcome()).isEqualTo(Outcome.APPLIED);
        assertThat(r.message()).isEqualTo("restored the GPU limits found before the first write on 1 board; the kept originals "
                + "in a store under test could not be removed (read-only file system), the next start restores them again");
        assertThat(fake.limitMw(0)).isEqualTo(700_000);
        assertThat(gpus.held()).as("the file still holds them").isTrue();
        assertThat(gpus.restore().message()).startsWith("restored the GPU limits found before the first write on 1 board");
        assertThat(fake.limitsSet()).containsExactly("0 300000", "0 700000", "0 700000");
    }

    @Test
    void aRefusedRestoreIsReportedAndTheRecordKept() throws IOException {
        fake = FakeNvml.install(dir, List.of(FakeNvml.Board.h100(), FakeNvml.Board.l40s()));
        OriginalsStore<Map<Integer, Long>> originals = OriginalsStore.memory();
        Gpus gpus = open(originals);
        gpus.apply(new CapRequest.Watts(300));
        fake.fail(FakeNvml.SET_LIMIT, 0, FakeNvml.NVML_ERROR_NO_PERMISSION);

        GpuCapResult r = gpus.restore();

        assertThat(r.outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(r.message()).startsWith("restore failed: GPU 0: nvmlDeviceSetPowerManagementLimit: NVML_ERROR_NO_PERMISSION");
        assertThat(fake.limitMw(1)).as("the other board is restored").isEqualTo(350_000);
        assertThat(kept(originals)).as("kept for the next try").contains(Map.of(0, 700_000L, 1, 350_000L));
    }
}
