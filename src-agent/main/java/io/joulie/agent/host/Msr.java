package io.joulie.agent.host;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/** Read-only access to the RAPL model-specific registers ({@code /dev/cpu/N/msr}); never writes an MSR. */
public interface Msr extends AutoCloseable {
    /** Package numbers (physical package ids) with a readable MSR device, ascending. */
    List<Integer> packages();

    /** The package's RAPL registers; empty if the package has no MSR device. */
    Optional<PackageMsr> read(int packageIndex) throws IOException;

    /**
     * Why the MSR devices the host has cannot be read, when they cannot (e.g. the container runtime's device cgroup
     * refuses them): the agent then reads none and says so ({@link #packages()} is empty). Empty when they can be read
     * or when there are none.
     */
    default Optional<String> unavailable() {
        return Optional.empty();
    }

    @Override
    void close();

    /** MSR devices that exist but cannot be read, and why: no package is read. */
    static Msr unavailable(String why) {
        return new None(Optional.of(why));
    }

    /** For hosts without the msr driver, or CPUs whose RAPL registers are not known. */
    static Msr absent() {
        return new None(Optional.empty());
    }

    /** No MSR is read: none exists, or, with a reason, none may be opened. */
    record None(Optional<String> unavailable) implements Msr {
        @Override
        public List<Integer> packages() {
            return List.of();
        }

        @Override
        public Optional<PackageMsr> read(int packageIndex) {
            return Optional.empty();
        }

        @Override
        public void close() {
        }
    }
}
