package io.joulie.agent.host;

import java.io.IOException;

/**
 * A host file could not be read or written, and what kind of failure that was: the host layer decides by kind
 * whether a value is merely unreported, a cap is refused by the host ({@code BLOCKED}) or something failed
 * ({@code ERROR}). The FFM layer maps errno onto the kinds.
 */
public class HostFileException extends IOException {
    public enum Kind {
        /** The file is absent, or its driver does not report the value (ENOENT, ENODATA, EOPNOTSUPP). */
        ABSENT,
        /** The host refuses by permission or policy (EACCES, EPERM, EROFS): trying again will not help. */
        REFUSED,
        /** Anything else: the call failed (EIO, EINVAL, EISDIR, ...). */
        FAULT
    }

    private final Kind kind;

    public HostFileException(String message, Kind kind) {
        super(message);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
