package io.joulie.agent.host.ffm;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/** A libc call failed: which call, on which path, and the errno it set. */
public final class NativeIoException extends IOException {
    private final Path path;
    private final int errno;

    public NativeIoException(String call, Path path, int errno) {
        super(call + " " + path + ": " + Errno.describe(errno));
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

    /** The file refuses writes by permission or policy (EACCES, EPERM, EROFS), as opposed to a fault. */
    public boolean isWriteRefusal() {
        return errno == Errno.EACCES.number() || errno == Errno.EPERM.number() || errno == Errno.EROFS.number();
    }
}
