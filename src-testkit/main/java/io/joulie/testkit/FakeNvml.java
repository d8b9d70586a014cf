package io.joulie.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A fake NVML in a directory: the test build's {@code libnvidia-ml.so.1} (compiled from {@code src-testkit/main/c/
 * fake_nvml.c} with gcc, the NVML symbols the agent calls with NVML's signatures) copied there, and the boards it
 * reports in the text file beside it ({@code libnvidia-ml.so.1.state}), which the library reads at every call and
 * writes when a limit is set. The agent loads it through its real FFM code ({@code JOULIE_NVML_LIBRARY} =
 * {@link #library()}); the test presets boards and failures and reads back the limits written and the calls made
 * ({@link #calls()}). Return codes are NVML's (nvml.h), written here from its documentation, not taken from the
 * agent.
 */
public final class FakeNvml {
    /** nvmlReturn_t values (nvml.h). */
    public static final int NVML_ERROR_UNINITIALIZED = 1;
    public static final int NVML_ERROR_INVALID_ARGUMENT = 2;
    public static final int NVML_ERROR_NOT_SUPPORTED = 3;
    public static final int NVML_ERROR_NO_PERMISSION = 4;
    public static final int NVML_ERROR_DRIVER_NOT_LOADED = 9;
    public static final int NVML_ERROR_GPU_IS_LOST = 15;
    public static final int NVML_ERROR_UNKNOWN = 999;

    /** The set call, as the library logs it. */
    public static final String SET_LIMIT = "nvmlDeviceSetPowerManagementLimit";

    /**
     * One board: its power-limit constraints, default and current limit (mW), its power reading (mW), its energy
     * counter (mJ since the driver loaded) and its name.
     */
    public record Board(String name, long minMw, long maxMw, long defaultMw, long limitMw, long powerMw, long energyMj) {
        /** An H100 SXM as NVML reports it: limits 200..700 W, default and current 700 W, drawing 350 W. */
        public static Board h100() {
            return new Board("NVIDIA H100 80GB HBM3", 200_000, 700_000, 700_000, 700_000, 350_000, 1_000_000);
        }

        /** An L40S: limits 100..350 W, default and current 350 W, drawing 120 W. */
        public static Board l40s() {
            return new Board("NVIDIA L40S", 100_000, 350_000, 350_000, 350_000, 120_000, 500_000);
        }

        public Board withLimitMw(long mw) {
            return new Board(name, minMw, maxMw, defaultMw, mw, powerMw, energyMj);
        }

        public Board withPowerMw(long mw) {
            return new Board(name, minMw, maxMw, defaultMw, limitMw, mw, energyMj);
        }

        public Board withEnergyMj(long mj) {
            return new Board(name, minMw, maxMw, defaultMw, limitMw, powerMw, mj);
        }
    }

    /** A return code the library gives for a function (on one device, or any: -1). */
    public record Failure(String function, int device, int code) {
    }

    private static final String RESOURCE = "/io/joulie/testkit/libnvidia-ml-fake.so";

    private final Path library;
    private final List<Board> boards;
    private final List<Failure> failures = new ArrayList<>();

    private FakeNvml(Path library, List<Board> boards) {
        this.library = library;
        this.boards = new ArrayList<>(boards);
    }

    /** Copies the fake library into {@code dir} as {@code libnvidia-ml.so.1} and describes {@code boards} beside it. */
    public static FakeNvml install(Path dir, List<Board> boards) {
        Path library = dir.resolve("libnvidia-ml.so.1");
        try (InputStream in = FakeNvml.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is not on the class path: the testkit build compiles it with gcc "
                        + "(src-testkit/pom.xml); run the build rather than the IDE's compiler alone");
            }
            Files.createDirectories(dir);
            Files.copy(in, library, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        FakeNvml nvml = new FakeNvml(library, boards);
        nvml.save();
        return nvml;
    }

    /** The library to load ({@code JOULIE_NVML_LIBRARY}). */
    public Path library() {
        return library;
    }

    /** The agent's setting that loads this library instead of the machine's. */
    public Map<String, String> agentEnvironment() {
        return Map.of("JOULIE_NVML_LIBRARY", library.toString());
    }

    /** The boards as the library has them now (limits it set included). */
    public List<Board> boards() {
        load();
        return List.copyOf(boards);
    }

    public Board board(int index) {
        return boards().get(index);
    }

    /** Board {@code index}'s current power limit in mW. */
    public long limitMw(int index) {
        return board(index).limitMw();
    }

    /** Replaces board {@code index} (a limit changed behind the agent's back, a new power reading, ...). */
    public void board(int index, Board board) {
        load();
        boards.set(index, board);
        save();
    }

    /** From now on {@code function} returns {@code code} (on {@code device}, or on any device with -1). */
    public void fail(String function, int device, int code) {
        load();
        failures.add(new Failure(function, device, code));
        save();
    }

    public void clearFailures() {
        load();
        failures.clear();
        save();
    }

    /**
     * The calls the library let through, in order, as it logged them: {@code nvmlInit_v2}, {@code nvmlShutdown},
     * {@code nvmlDeviceSetPowerManagementLimit <index> <mW>}.
     */
    public List<String> calls() {
        try {
            return Files.readAllLines(Path.of(library + ".log"));
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The limits written, as {@code "<index> <mW>"}, in order. */
    public List<String> limitsSet() {
        return calls().stream().filter(c -> c.startsWith(SET_LIMIT + " ")).map(c -> c.substring(SET_LIMIT.length() + 1)).toList();
    }

    private Path stateFile() {
        return Path.of(library + ".state");
    }

    private void load() {
        List<String> lines;
        try {
            lines = Files.readAllLines(stateFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        boards.clear();
        failures.clear();
        for (String line : lines) {
            String[] f = line.split(" ", 9);
            if (f[0].equals("device")) {
                boards.add(new Board(f.length > 8 ? f[8] : "", Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]),
                        Long.parseLong(f[5]), Long.parseLong(f[6]), Long.parseLong(f[7])));
            } else if (f[0].equals("fail")) {
                failures.add(new Failure(f[1], Integer.parseInt(f[2]), Integer.parseInt(f[3])));
            }
        }
    }

    /** Written to a temporary file and renamed over the state, so the library never reads half a file. */
    private void save() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < boards.size(); i++) {
            Board b = boards.get(i);
            text.append("device ").append(i).append(' ').append(b.minMw()).append(' ').append(b.maxMw()).append(' ')
                    .append(b.defaultMw()).append(' ').append(b.limitMw()).append(' ').append(b.powerMw()).append(' ')
                    .append(b.energyMj()).append(' ').append(b.name()).append('\n');
        }
        for (Failure f : failures) {
            text.append("fail ").append(f.function()).append(' ').append(f.device()).append(' ').append(f.code()).append('\n');
        }
        try {
            Path tmp = Files.createTempFile(library.getParent(), "state", ".tmp");
            Files.writeString(tmp, text);
            Files.move(tmp, stateFile(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
