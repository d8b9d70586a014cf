package io.joulie.agent.host.ffm;

import java.util.Arrays;
import java.util.Optional;

/** The errno values the host-access layer can meet, with their Linux numbers (identical on x86_64 and aarch64). */
public enum Errno {
    EPERM(1, "operation not permitted"),
    ENOENT(2, "no such file or directory"),
    EINTR(4, "interrupted system call"),
    EIO(5, "input/output error"),
    ENXIO(6, "no such device or address"),
    EBADF(9, "bad file descriptor"),
    EAGAIN(11, "resource temporarily unavailable"),
    EACCES(13, "permission denied"),
    EFAULT(14, "bad address"),
    EBUSY(16, "device or resource busy"),
    ENODEV(19, "no such device"),
    ENOTDIR(20, "not a directory"),
    EISDIR(21, "is a directory"),
    EINVAL(22, "invalid argument"),
    EMFILE(24, "too many open files"),
    ENOSPC(28, "no space left on device"),
    ESPIPE(29, "illegal seek"),
    EROFS(30, "read-only file system"),
    ERANGE(34, "result out of range"),
    ENODATA(61, "no data available"),
    EOPNOTSUPP(95, "operation not supported");

    private final int number;
    private final String description;

    Errno(int number, String description) {
        this.number = number;
        this.description = description;
    }

    public int number() {
        return number;
    }

    public static Optional<Errno> of(int number) {
        return Arrays.stream(values()).filter(e -> e.number == number).findFirst();
    }

    /** {@code "EACCES (13, permission denied)"}, or {@code "errno 77"} for a number not listed here. */
    public static String describe(int number) {
        return of(number).map(e -> e.name() + " (" + number + ", " + e.description + ")").orElse("errno " + number);
    }
}
