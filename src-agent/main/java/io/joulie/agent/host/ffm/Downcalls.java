package io.joulie.agent.host.ffm;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.util.List;
import java.util.stream.Stream;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Every native function the agent calls, as data: name, C signature and linker options. {@link Libc} binds exactly
 * the libc ones ({@link #LIBC}), {@link FfmNvml} exactly the NVML ones ({@link #NVML}), and
 * {@link ForeignRegistrationFeature} registers exactly {@link #ALL} for native image. This class links nothing, so a
 * build-time Feature can read it without touching the native linker. Signatures are those of 64-bit Linux (x86_64,
 * aarch64): {@code size_t}, {@code ssize_t} and {@code off_t} are 64 bits; NVML's {@code nvmlReturn_t} and
 * {@code unsigned int} are 32 bits, {@code nvmlDevice_t} a pointer.
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

    public static final List<Downcall> LIBC = List.of(OPEN, PREAD, PWRITE, FTRUNCATE, CLOSE);

    /** {@code nvmlReturn_t nvmlInit_v2(void)} */
    public static final Downcall NVML_INIT = nvml("nvmlInit_v2", FunctionDescriptor.of(JAVA_INT));
    /** {@code nvmlReturn_t nvmlShutdown(void)} */
    public static final Downcall NVML_SHUTDOWN = nvml("nvmlShutdown", FunctionDescriptor.of(JAVA_INT));
    /** {@code nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)} */
    public static final Downcall NVML_DEVICE_COUNT = nvml("nvmlDeviceGetCount_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    /** {@code nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)} */
    public static final Downcall NVML_HANDLE_BY_INDEX = nvml("nvmlDeviceGetHandleByIndex_v2",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    /** {@code nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)} */
    public static final Downcall NVML_NAME = nvml("nvmlDeviceGetName", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    /** {@code nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t, unsigned int *minLimit, unsigned int *maxLimit)} */
    public static final Downcall NVML_LIMIT_CONSTRAINTS = nvml("nvmlDeviceGetPowerManagementLimitConstraints",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    /** {@code nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t, unsigned int *defaultLimit)} */
    public static final Downcall NVML_DEFAULT_LIMIT = nvml("nvmlDeviceGetPowerManagementDefaultLimit",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    /** {@code nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t, unsigned int *limit)} */
    public static final Downcall NVML_LIMIT = nvml("nvmlDeviceGetPowerManagementLimit", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    /** {@code nvmlReturn_t nvmlDeviceSetPowerManagementLimit(nvmlDevice_t, unsigned int limit)} */
    public static final Downcall NVML_SET_LIMIT = nvml("nvmlDeviceSetPowerManagementLimit",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    /** {@code nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t, unsigned int *power)} */
    public static final Downcall NVML_POWER_USAGE = nvml("nvmlDeviceGetPowerUsage", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    /** {@code nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t, unsigned long long *energy)} */
    public static final Downcall NVML_TOTAL_ENERGY = nvml("nvmlDeviceGetTotalEnergyConsumption",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    public static final List<Downcall> NVML = List.of(NVML_INIT, NVML_SHUTDOWN, NVML_DEVICE_COUNT, NVML_HANDLE_BY_INDEX, NVML_NAME,
            NVML_LIMIT_CONSTRAINTS, NVML_DEFAULT_LIMIT, NVML_LIMIT, NVML_SET_LIMIT, NVML_POWER_USAGE, NVML_TOTAL_ENERGY);

    public static final List<Downcall> ALL = Stream.concat(LIBC.stream(), NVML.stream()).toList();

    /**
     * What a downcall's {@code invokeExact} threw, as an unchecked exception: it declares Throwable, but a downcall
     * itself throws only on misuse (wrong types, closed segments).
     */
    static RuntimeException unexpected(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    /** NVML reports failures as its return value; there is no errno to capture. */
    private static Downcall nvml(String name, FunctionDescriptor descriptor) {
        return new Downcall(name, descriptor, List.of());
    }

    private Downcalls() {
    }
}
