package io.joulie.agent.host;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The port through which the host layer reaches the kernel's files (sysfs: powercap, cpufreq). The host layer
 * keeps what the files mean (layout, bounds, the all-or-nothing cap, restore); an implementation only reads and
 * writes: {@code host.ffm.FfmSysfsFiles} through libc by FFM, and in tests an in-memory tree. A failure is a
 * {@link HostFileException} saying whether the file is absent, refused or faulty.
 */
public interface SysfsFiles {
    /** How a kept file is opened. */
    enum Access { READ, WRITE }

    /** A file opened once and used many times: a counter re-read at offset 0, or a limit opened before any is written. */
    interface OpenFile extends AutoCloseable {
        Path path();

        /** The whole content, without trailing whitespace. */
        String readText() throws IOException;

        /** The content as a non-negative decimal. */
        long readDecimal() throws IOException;

        /** Replaces the content. */
        void writeText(String text) throws IOException;

        /** Idempotent. */
        @Override
        void close();
    }

    boolean isDirectory(Path path);

    /** The entries of {@code dir}, in no particular order. */
    List<Path> list(Path dir) throws IOException;

    /** Opens, reads once, closes: for values read a single time (names, limits, ranges). */
    String readText(Path file) throws IOException;

    long readDecimal(Path file) throws IOException;

    /** Opens for writing, replaces the content, closes. */
    void writeText(Path file, String text) throws IOException;

    OpenFile open(Path file, Access access) throws IOException;

    /** {@link #readText(Path)}, or empty when the file is absent or its driver does not report the value. */
    default Optional<String> readTextIfReported(Path file) throws IOException {
        return ifReported(() -> readText(file));
    }

    /** {@link #readDecimal(Path)}, or empty when the file is absent or its driver does not report the value. */
    default OptionalLong readDecimalIfReported(Path file) throws IOException {
        return ifReported(() -> readDecimal(file)).map(OptionalLong::of).orElseGet(OptionalLong::empty);
    }

    private static <T> Optional<T> ifReported(Read<T> read) throws IOException {
        try {
            return Optional.of(read.get());
        } catch (HostFileException e) {
            if (e.kind() == HostFileException.Kind.ABSENT) {
                return Optional.empty();
            }
            throw e;
        }
    }

    @FunctionalInterface
    interface Read<T> {
        T get() throws IOException;
    }
}
