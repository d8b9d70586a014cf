package io.joulie.agent.host.ffm;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Every libc function the agent calls, as data: name, C signature and linker options. {@link Libc} binds
 * exactly these, and {@link ForeignRegistrationFeature} registers exactly {@link #ALL} for native image.
 * This class links nothing, so a build-time Feature can read it without touching the native linker.
 * Signatures are those of 64-bit Linux (x86_64, aarch64): {@code size_t}, {@code ssize_t} and
 * {@code off_t} are 64 bits.
 */
public final class Downcalls {
    /** One downcall: what {@code Linker.downcallHandle} and {@code RuntimeForeignAccess} both need. */
    public record Downcall(String name, FunctionDescriptor descriptor, List<Linker.Option> options) {
        public Downcall {
            options = List.copyOf(options);
        }

        public Linker.Option[] optionArray() {
            return options.toArray(Linker.Option[]::new);
        }
    }

    /** errno is read right after the call, before the JVM can overwrite it. */
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");

    /** {@code int open(const char *path, int flags, ...)}: the mode is the first variadic argument. */
    public static final Downcall OPEN = new Downcall("open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), List.of(Linker.Option.firstVariadicArg(2), ERRNO));
    /** {@code ssize_t pread(int fd, void *buf, size_t count, off_t offset)} */
    public static final Downcall PREAD = new Downcall("pread",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG), List.of(ERRNO));
    /** {@code ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset)} */
    public static final Downcall PWRITE = new Downcall("pwrite",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG), List.of(ERRNO));
    /** {@code int ftruncate(int fd, off_t length)}: cuts a rewritten regular file to the new value (a no-op on sysfs). */
    public static final Downcall FTRUNCATE = new Downcall("ftruncate",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG), List.of(ERRNO));
    /** {@code int close(int fd)}: Linux frees the descriptor even on error, so errno is not needed. */
    public static final Downcall CLOSE = new Downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), List.of());

    public static final List<Downcall> ALL = List.of(OPEN, PREAD, PWRITE, FTRUNCATE, CLOSE);

    private Downcalls() {
    }
}
