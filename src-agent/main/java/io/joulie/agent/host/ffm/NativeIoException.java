package io.joulie.agent.host.ffm;

import io.joulie.agent.host.HostFileException;

import java.nio.file.Path;
import java.util.Optional;

/** A libc call failed: which call, on which path, and the errno it set, with the kind of failure the errno means. */
public final class NativeIoException extends HostFileException {
    private final Path path;
    private final int errno;

    public NativeIoException(String call, Path path, int errno) {
        super(call + " " + path + ": " + Errno.describe(errno), kindOf(errno));
        this.path = path;
        this.errno = errno;
    }

    public Path path() {
        return path;
    }

    public int errno() {
        return errno;
    }

    public Optional<Errno> error() {
        return Errno.of(errno);
    }

    /**
     * Refused by permission or policy (EACCES, EPERM, EROFS); absent or not reported by the driver (ENOENT,
     * ENODATA, EOPNOTSUPP); any other errno is a fault.
     */
    static Kind kindOf(int errno) {
        return switch (Errno.of(errno).orElse(Errno.EIO)) {
            case EACCES, EPERM, EROFS -> Kind.REFUSED;
            case ENOENT, ENODATA, EOPNOTSUPP -> Kind.ABSENT;
            default -> Kind.FAULT;
        };
    }
}
