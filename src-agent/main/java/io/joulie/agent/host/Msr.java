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

    @Override
    void close();

    /** For hosts without the msr driver, or CPUs whose RAPL registers are not known. */
    static Msr absent() {
        return new Msr() {
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
        };
    }
}
