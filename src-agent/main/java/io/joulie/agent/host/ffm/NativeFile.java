package io.joulie.agent.host.ffm;

import io.joulie.agent.host.SysfsFiles;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A file descriptor opened once and read or written at explicit offsets: a sysfs attribute is re-read
 * with {@code pread} at offset 0 (the kernel regenerates the value on every read), an MSR device with
 * {@code pread} of 8 bytes at the register's address. The native buffer and the errno state are
 * allocated once per file; methods are synchronized because they share them. A handle from
 * {@link #open} lives in a shared arena (any thread may use it); the one-shot helpers ({@link #readText(Path)},
 * ...) use a confined one, since closing a shared arena costs a handshake with every thread (about 20 µs,
 * docs/benchmarks.md).
 */
public final class NativeFile implements SysfsFiles.OpenFile {
    public enum Mode {
        READ(Libc.O_RDONLY), WRITE(Libc.O_WRONLY);

        private final int flags;

        Mode(int flags) {
            this.flags = flags;
        }
    }

    /** A sysfs attribute holds at most one page. */
    private static final int BUFFER_BYTES = 4096;
    private static final ValueLayout.OfLong LITTLE_ENDIAN_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Path path;
    private final int fd;
    private final Arena arena;
    private final MemorySegment state;
    private final MemorySegment buffer;
    private boolean closed;

    private NativeFile(Path path, int fd, Arena arena) {
        this.path = path;
        this.fd = fd;
        this.arena = arena;
        this.state = Libc.newCallState(arena);
        this.buffer = arena.allocate(BUFFER_BYTES);
    }

    /** Opens {@code path}; fails with the errno of open(2) (ENOENT, EACCES, EISDIR, ...). */
    public static NativeFile open(Path path, Mode mode) throws NativeIoException {
        return new NativeFile(path, Libc.open(path, mode.flags), Arena.ofShared());
    }

    private static NativeFile openForThisThread(Path path, Mode mode) throws NativeIoException {
        return new NativeFile(path, Libc.open(path, mode.flags), Arena.ofConfined());
    }

    /** Opens, reads once, closes: for values read a single time (limits, ranges, names). */
    public static String readText(Path path) throws IOException {
        try (NativeFile file = openForThisThread(path, Mode.READ)) {
            return file.readText();
        }
    }

    public static long readDecimal(Path path) throws IOException {
        try (NativeFile file = openForThisThread(path, Mode.READ)) {
            return file.readDecimal();
        }
    }

    /** Opens for writing, replaces the content, closes. */
    public static void writeText(Path path, String text) throws IOException {
        try (NativeFile file = openForThisThread(path, Mode.WRITE)) {
            file.writeText(text);
        }
    }

    @Override
    public Path path() {
        return path;
    }

    /** The whole content from offset 0, without trailing whitespace. */
    @Override
    public synchronized String readText() throws IOException {
        return decode(readFromStart()).strip();
    }

    /** The content from offset 0 as a non-negative decimal (sysfs counters and limits), parsed in place. */
    @Override
    public synchronized long readDecimal() throws IOException {
        int end = readFromStart();
        while (end > 0 && Character.isWhitespace(buffer.get(ValueLayout.JAVA_BYTE, end - 1))) {
            end--;
        }
        if (end == 0) {
            throw new IOException(path + ": empty, expected a decimal number");
        }
        long value = 0;
        for (int i = 0; i < end; i++) {
            int digit = buffer.get(ValueLayout.JAVA_BYTE, i) - '0';
            if (digit < 0 || digit > 9 || value > (Long.MAX_VALUE - digit) / 10) {
                throw new IOException(path + ": not a decimal number: '" + decode(end) + "'");
            }
            value = value * 10 + digit;
        }
        return value;
    }

    /** 8 bytes at {@code offset}, little-endian: one MSR read on /dev/cpu/N/msr. */
    public synchronized long readLong(long offset) throws IOException {
        long n = Libc.pread(state, path, fd(), buffer, Long.BYTES, offset);
        if (n != Long.BYTES) {
            throw new IOException(path + ": read " + n + " of 8 bytes at 0x" + Long.toHexString(offset));
        }
        return buffer.get(LITTLE_ENDIAN_LONG, 0);
    }

    /**
     * Replaces the content with {@code text}: pwrite at offset 0, then ftruncate to its length (sysfs
     * ignores the truncation; a regular file standing in for sysfs must not keep a longer old value's tail).
     */
    @Override
    public synchronized void writeText(String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > BUFFER_BYTES) {
            throw new IllegalArgumentException("value longer than a sysfs page: " + bytes.length + " bytes");
        }
        MemorySegment.copy(bytes, 0, buffer, ValueLayout.JAVA_BYTE, 0, bytes.length);
        long n = Libc.pwrite(state, path, fd(), buffer, bytes.length, 0);
        if (n != bytes.length) {
            throw new IOException(path + ": wrote " + n + " of " + bytes.length + " bytes");
        }
        Libc.ftruncate(state, path, fd, bytes.length);
    }

    /** Idempotent. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            Libc.close(fd);
            arena.close();
        }
    }

    private int readFromStart() throws IOException {
        return (int) Libc.pread(state, path, fd(), buffer, BUFFER_BYTES, 0);
    }

    private String decode(int length) {
        return new String(buffer.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }

    private int fd() {
        if (closed) {
            throw new IllegalStateException(path + " is closed");
        }
        return fd;
    }
}
