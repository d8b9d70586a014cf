package io.joulie.agent.host;

import java.nio.file.Path;

/**
 * Where the host's sysfs, procfs and devices are visible: {@code /sys}, {@code /proc}, {@code /dev} on
 * the host itself, {@code /host/sys} ... in a container that mounts them there, a temp dir in tests.
 */
public record HostRoots(Path sys, Path proc, Path dev) {
    public static HostRoots host() {
        return new HostRoots(Path.of("/sys"), Path.of("/proc"), Path.of("/dev"));
    }

    /** {@code prefix/sys}, {@code prefix/proc}, {@code prefix/dev}. */
    public static HostRoots under(Path prefix) {
        return new HostRoots(prefix.resolve("sys"), prefix.resolve("proc"), prefix.resolve("dev"));
    }
}
