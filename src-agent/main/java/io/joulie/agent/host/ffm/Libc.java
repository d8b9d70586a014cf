package io.joulie.agent.host.ffm;

import io.joulie.agent.host.ffm.Downcalls.Downcall;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The bound libc downcalls, one method each. {@code pread}, {@code pwrite} and {@code ftruncate} take the
 * caller's call-state segment ({@link #newCallState}), {@code open} allocates its own; a failing call
 * (return value -1) becomes a {@link NativeIoException} with the path and the errno the linker captured.
 */
final class Libc {
    /** Linux open(2) flags, identical on x86_64 and aarch64. */
    static final int O_RDONLY = 0;
    static final int O_WRONLY = 1;
    static final int O_CLOEXEC = 0x80000;

    private static final List<Downcall> BOUND = new ArrayList<>();
    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(PathElement.groupElement("errno"));

    private static final MethodHandle OPEN = bind(Downcalls.OPEN);
    private static final MethodHandle PREAD = bind(Downcalls.PREAD);
    private static final MethodHandle PWRITE = bind(Downcalls.PWRITE);
    private static final MethodHandle FTRUNCATE = bind(Downcalls.FTRUNCATE);
    private static final MethodHandle CLOSE = bind(Downcalls.CLOSE);

    private Libc() {
    }

    private static MethodHandle bind(Downcall downcall) {
        BOUND.add(downcall);
        MemorySegment symbol = LINKER.defaultLookup().find(downcall.name())
                .orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + downcall.name()));
        return LINKER.downcallHandle(symbol, downcall.descriptor(), downcall.optionArray());
    }

    /** The downcalls this class bound, in binding order. */
    static List<Downcall> bound() {
        return List.copyOf(BOUND);
    }

    /** A segment the linker fills with errno after each call; one per thread of use. */
    static MemorySegment newCallState(Arena arena) {
        return arena.allocate(CALL_STATE);
    }

    static int open(Path path, int flags) throws NativeIoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = newCallState(arena);
            int fd;
            try {
                fd = (int) OPEN.invokeExact(state, arena.allocateFrom(path.toString()), flags | O_CLOEXEC, 0);
            } catch (Throwable t) {
                throw Downcalls.unexpected(t);
            }
            if (fd < 0) {
                throw new NativeIoException("open", path, errno(state));
            }
            return fd;
        }
    }

    static long pread(MemorySegment state, Path path, int fd, MemorySegment buffer, long count, long offset)
            throws NativeIoException {
        return transfer("pread", PREAD, state, path, fd, buffer, count, offset);
    }

    static long pwrite(MemorySegment state, Path path, int fd, MemorySegment buffer, long count, long offset)
            throws NativeIoException {
        return transfer("pwrite", PWRITE, state, path, fd, buffer, count, offset);
    }

    /** pread and pwrite share their signature: one call site, errno turned into an exception naming the path. */
    private static long transfer(String call, MethodHandle handle, MemorySegment state, Path path, int fd,
                                 MemorySegment buffer, long count, long offset) throws NativeIoException {
        long n;
        try {
            n = (long) handle.invokeExact(state, fd, buffer, count, offset);
        } catch (Throwable t) {
            throw Downcalls.unexpected(t);
        }
        if (n < 0) {
            throw new NativeIoException(call, path, errno(state));
        }
        return n;
    }

    static void ftruncate(MemorySegment state, Path path, int fd, long length) throws NativeIoException {
        int rc;
        try {
            rc = (int) FTRUNCATE.invokeExact(state, fd, length);
        } catch (Throwable t) {
            throw Downcalls.unexpected(t);
        }
        if (rc < 0) {
            throw new NativeIoException("ftruncate", path, errno(state));
        }
    }

    /** Linux releases the descriptor even when close(2) fails, so there is nothing to report or retry. */
    static void close(int fd) {
        try {
            int ignored = (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw Downcalls.unexpected(t);
        }
    }

    private static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }
}
