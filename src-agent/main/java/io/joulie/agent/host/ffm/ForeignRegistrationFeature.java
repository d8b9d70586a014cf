package io.joulie.agent.host.ffm;

import io.joulie.agent.host.ffm.Downcalls.Downcall;
import org.graalvm.nativeimage.hosted.Feature;
import org.graalvm.nativeimage.hosted.RuntimeForeignAccess;

import java.util.List;

/**
 * Native image: downcall stubs are generated at build time, so every (descriptor, options) pair that
 * {@link Libc} and {@link FfmNvml} link must be registered here. Enabled by {@code --features=} in
 * application.properties.
 */
public final class ForeignRegistrationFeature implements Feature {
    /** What {@link #duringSetup} registers. */
    static List<Downcall> registrations() {
        return Downcalls.ALL;
    }

    @Override
    public void duringSetup(DuringSetupAccess access) {
        for (Downcall downcall : registrations()) {
            RuntimeForeignAccess.registerForDowncall(downcall.descriptor(), (Object[]) downcall.optionArray());
        }
    }

    @Override
    public String getDescription() {
        return "Registers the libc and NVML downcalls of the Joulie agent's host-access layer";
    }
}
