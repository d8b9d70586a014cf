package io.joulie.agent.host.ffm;

import io.joulie.agent.host.Nvml;
import io.joulie.agent.host.NvmlException;
import io.joulie.agent.host.ffm.Downcalls.Downcall;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@link Nvml} through FFM on {@code libnvidia-ml.so.1}: the library is opened with
 * {@link SymbolLookup#libraryLookup} (a path, or a name the dynamic loader searches for), the calls of
 * {@link Downcalls#NVML} are bound to it, and {@code nvmlInit_v2} is called. Board handles are looked up once per
 * index and kept for the session. Out-parameters live in a confined arena per call. Closing calls
 * {@code nvmlShutdown} and unloads the library. Methods are synchronized: NVML is thread-safe, the handle cache is not.
 */
public final class FfmNvml implements Nvml {
    /** NVML_DEVICE_NAME_V2_BUFFER_SIZE (nvml.h). */
    static final int NAME_BUFFER = 96;
    private static final Linker LINKER = Linker.nativeLinker();
    /** Every NVML downcall this class has bound, so that a test can compare them with the native-image registrations. */
    private static final Set<Downcall> BOUND = Collections.synchronizedSet(new LinkedHashSet<>());

    private final Arena library;
    private final SymbolLookup lookup;
    private final String source;
    private final MethodHandle shutdown;
    private final MethodHandle deviceCount;
    private final MethodHandle handleByIndex;
    private final MethodHandle name;
    private final MethodHandle constraints;
    private final MethodHandle defaultLimit;
    private final MethodHandle limit;
    private final MethodHandle setLimit;
    private final MethodHandle powerUsage;
    private final MethodHandle totalEnergy;
    private final Map<Integer, MemorySegment> handles = new HashMap<>();
    private boolean closed;

    /** Binds every NVML call but nvmlInit_v2; a missing function fails here, before anything is called. */
    private FfmNvml(Arena library, SymbolLookup lookup, String source) {
        this.library = library;
        this.lookup = lookup;
        this.source = source;
        shutdown = bind(Downcalls.NVML_SHUTDOWN);
        deviceCount = bind(Downcalls.NVML_DEVICE_COUNT);
        handleByIndex = bind(Downcalls.NVML_HANDLE_BY_INDEX);
        name = bind(Downcalls.NVML_NAME);
        constraints = bind(Downcalls.NVML_LIMIT_CONSTRAINTS);
        defaultLimit = bind(Downcalls.NVML_DEFAULT_LIMIT);
        limit = bind(Downcalls.NVML_LIMIT);
        setLimit = bind(Downcalls.NVML_SET_LIMIT);
        powerUsage = bind(Downcalls.NVML_POWER_USAGE);
        totalEnergy = bind(Downcalls.NVML_TOTAL_ENERGY);
    }

    /**
     * Loads NVML and initialises it.
     *
     * @param library an absolute path, or a file name the dynamic loader finds ({@code libnvidia-ml.so.1}: LD_LIBRARY_PATH,
     *                the ld.so cache, the default directories)
     * @throws IOException the library cannot be opened or lacks a function the agent calls; {@link NvmlException} when
     *                     {@code nvmlInit_v2} fails (no driver, no permission, ...)
     */
    public static Nvml load(String library) throws IOException {
        Arena arena = Arena.ofShared();
        try {
            SymbolLookup lookup;
            try {
                lookup = library.contains("/") ? SymbolLookup.libraryLookup(Path.of(library), arena)
                        : SymbolLookup.libraryLookup(library, arena);
            } catch (IllegalArgumentException e) {
                throw new IOException("cannot load " + library + " (" + e.getMessage() + ")", e);
            }
            FfmNvml nvml = new FfmNvml(arena, lookup, library);
            int rc = (int) nvml.bind(Downcalls.NVML_INIT).invokeExact();
            if (rc != 0) {
                throw new NvmlException(Downcalls.NVML_INIT.name(), OptionalInt.empty(), rc);
            }
            return nvml;
        } catch (UnsatisfiedLinkError e) {
            arena.close();
            throw new IOException(e.getMessage(), e);
        } catch (IOException | RuntimeException | Error e) {
            arena.close();
            throw e;
        } catch (Throwable t) {
            arena.close();
            throw new IllegalStateException(t);
        }
    }

    /** The NVML downcalls bound so far, in binding order. */
    static List<Downcall> bound() {
        synchronized (BOUND) {
            return List.copyOf(BOUND);
        }
    }

    private MethodHandle bind(Downcall downcall) {
        MemorySegment symbol = lookup.find(downcall.name()).orElseThrow(() -> new UnsatisfiedLinkError(source + " has no "
                + downcall.name() + " (an NVIDIA driver too old for this agent, or not NVML)"));
        BOUND.add(downcall);
        return LINKER.downcallHandle(symbol, downcall.descriptor(), downcall.optionArray());
    }

    @Override
    public synchronized int deviceCount() throws NvmlException {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment count = call.allocate(JAVA_INT);
            check(Downcalls.NVML_DEVICE_COUNT, OptionalInt.empty(), (int) deviceCount.invokeExact(count));
            return count.get(JAVA_INT, 0);
        } catch (NvmlException e) {
            throw e;
        } catch (Throwable t) {
            throw Downcalls.unexpected(t);
        }
    }

    @Override
    public synchronized String name(int board) throws NvmlException {
        MemorySegment device = handle(board);
        try (Arena call = Arena.ofConfined()) {
            MemorySegment buffer = call.allocate(NAME_BUFFER);
            check(Downcalls.NVML_NAME, OptionalInt.of(board), (int) name.invokeExact(device, buffer, NAME_BUFFER));
            return buffer.getString(0, StandardCharsets.UTF_8);
        } catch (NvmlException e) {
            throw e;
        } catch (Throwable t) {
            throw Downcalls.unexpected(t);
        }
    }

    @Override
    public synchronized Constraints constraints(int board) throws NvmlException {
        MemorySegment device = handle(board);
        try (Arena call = Arena.ofConfined()) {
            MemorySegment min = call.allocate(JAVA_INT);
            MemorySegment max = call.allocate(JAVA_INT);
            check(Downcalls.NVML_LIMIT_CONSTRAINTS, OptionalInt.of(board), (int) constraints.invokeExact(device, min, max));
            return new Constraints(unsigned(min), unsigned(max));
        } catch (NvmlException e) {
            throw e;
        } catch (Throwable t) {
            throw Downcalls.unexpected(t);
        }
    }

    @Override
    public synchronized long defaultLimitMw(int board) throws NvmlException {
        return unsignedOut(Downcalls.NVML_DEFAULT_LIMIT, defaultLimit, board);
    }

    @Override
    public synchronized long limitMw(int board) throws NvmlException {
        return unsignedOut(Downcalls.NVML_LIMIT, limit, board);
    }

    @Override
    public synchronized void setLimitMw(int board, long milliwatts) throws NvmlException {
        if (milliwatts < 0 || milliwatts > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("GPU " + board + ": " + milliwatts + " mW does not fit an unsigned int");
        }
        MemorySegment device = handle(board);
        try {
            check(Downcalls.NVML_SET_LIMIT, OptionalInt.of(board), (int) setLimit.invokeExact(device, (int) milliwatts));
        } catch (NvmlException e) {
            throw e;
        } catch (Throwable t) {
            throw Downcalls.unexpected(t);
        }
    }

    @Override
    public synchronized long powerMw(int board) throws NvmlException {
        return unsignedOut(Downcalls.NVML_POWER_USAGE, powerUsage, board);
    }

    @Override
    public synchronized long energyMj(int board) throws NvmlException {
        MemorySegment device = handle(board);
        try (Arena call = Arena.ofConfined()) {
            MemorySegment energy = call.allocate(JAVA_LONG);
            check(Downcalls.NVML_TOTAL_ENERGY, OptionalInt.of(board), (int) totalEnergy.invokeExact(device, energy));
            return energy.get(JAVA_LONG, 0);
        } catch (NvmlException e) {
            throw e;
        } catch (Throwable t) {
            throw Downcalls.unexpected(t);
        }
    }

    /** Calls nvmlShutdown and unloads the library; idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            int ignored = (int) shutdown.invokeExact();
        } catch (Throwable t) {
            throw Downcalls.unexpected(t);
        } finally {
            handles.clear();
            library.close();
        }
    }

    /** A call of the form {@code nvmlReturn_t f(nvmlDevice_t, unsigned int *out)}. */
    private long unsignedOut(Downcall downcall, MethodHandle handle, int board) throws NvmlException {
        MemorySegment device = handle(board);
        try (Arena call = Arena.ofConfined()) {
            MemorySegment out = call.allocate(JAVA_INT);
            check(downcall, OptionalInt.of(board), (int) handle.invokeExact(device, out));
            return unsigned(out);
        } catch (NvmlException e) {
            throw e;
        } catch (Throwable t) {
            throw Downcalls.unexpected(t);
        }
    }

    private MemorySegment handle(int board) throws NvmlException {
        if (closed) {
            throw new IllegalStateException("NVML is shut down");
        }
        MemorySegment device = handles.get(board);
        if (device != null) {
            return device;
        }
        try (Arena call = Arena.ofConfined()) {
            MemorySegment out = call.allocate(ADDRESS);
            check(Downcalls.NVML_HANDLE_BY_INDEX, OptionalInt.of(board), (int) handleByIndex.invokeExact(board, out));
            device = out.get(ADDRESS, 0);
        } catch (NvmlException e) {
            throw e;
        } catch (Throwable t) {
            throw Downcalls.unexpected(t);
        }
        handles.put(board, device);
        return device;
    }

    private static void check(Downcall downcall, OptionalInt board, int rc) throws NvmlException {
        if (rc != 0) {
            throw new NvmlException(downcall.name(), board, rc);
        }
    }

    private static long unsigned(MemorySegment out) {
        return Integer.toUnsignedLong(out.get(JAVA_INT, 0));
    }
}
