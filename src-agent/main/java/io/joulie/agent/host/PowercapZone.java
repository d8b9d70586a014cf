package io.joulie.agent.host;

import java.util.List;

/**
 * A RAPL zone under {@code <sys>/class/powercap}: a package ({@code intel-rapl:N}, {@code amd-rapl:N})
 * with its sub-zones ({@code intel-rapl:N:M}: core, uncore, dram), which have no sub-zones themselves.
 *
 * @param name              the zone's {@code name} file ({@code package-0}, {@code core}, ...), the id if absent
 * @param packageIndex      N of the zone id
 * @param maxEnergyRangeUj  {@code max_energy_range_uj}, where {@code energy_uj} wraps to 0; 0 if unknown
 */
public record PowercapZone(String id, String name, int packageIndex, long maxEnergyRangeUj, List<PowercapZone> subZones) {
    public PowercapZone {
        subZones = List.copyOf(subZones);
    }

    /**
     * Energy consumed between two {@code energy_uj} readings. A counter that went backwards wrapped at
     * {@code max_energy_range_uj}: the delta is {@code max - previous + current}. Without a known range
     * only the energy since the wrap ({@code current}) can be counted.
     */
    public long energyDeltaUj(long previousUj, long currentUj) {
        if (currentUj >= previousUj) {
            return currentUj - previousUj;
        }
        return maxEnergyRangeUj > previousUj ? maxEnergyRangeUj - previousUj + currentUj : currentUj;
    }
}
