package io.joulie.agent.power;

import io.joulie.agent.host.Powercap;
import io.joulie.agent.host.PowercapZone;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.OptionalDouble;

/** Package power from the RAPL energy counters: the summed energy of all packages between two samples, over time. */
public final class PackagePowerMeter {
    private final Powercap powercap;
    private final InstantSource clock;
    private long[] previousUj;
    private Instant previousAt;

    public PackagePowerMeter(Powercap powercap, InstantSource clock) {
        this.powercap = powercap;
        this.clock = clock;
    }

    /**
     * Watts since the previous sample (counter wraps included); empty on the first sample, without elapsed
     * time, or when there are no packages (no reading, rather than 0 W).
     */
    public OptionalDouble sampleWatts() throws IOException {
        List<PowercapZone> packages = powercap.packages();
        if (packages.isEmpty()) {
            return OptionalDouble.empty();
        }
        long[] currentUj = new long[packages.size()];
        for (int i = 0; i < currentUj.length; i++) {
            currentUj[i] = powercap.energyUj(packages.get(i));
        }
        Instant now = clock.instant();
        OptionalDouble watts = OptionalDouble.empty();
        if (previousUj != null && now.isAfter(previousAt)) {
            long energyUj = 0;
            for (int i = 0; i < currentUj.length; i++) {
                energyUj += packages.get(i).energyDeltaUj(previousUj[i], currentUj[i]);
            }
            watts = OptionalDouble.of(energyUj / 1e6 / (Duration.between(previousAt, now).toNanos() / 1e9));
        }
        previousUj = currentUj;
        previousAt = now;
        return watts;
    }
}
