package io.joulie.agent.host;

import java.util.List;
import java.util.OptionalInt;

/**
 * A RAPL zone under {@code <sys>/class/powercap}: a package zone ({@code intel-rapl:N} named {@code package-P}, or a
 * die of package P named {@code package-P-die-D}) with its sub-zones ({@code intel-rapl:N:M}: core, uncore, dram),
 * which have no sub-zones themselves.
 *
 * @param name              the zone's {@code name} file ({@code package-0}, {@code package-0-die-1}, {@code core}, ...),
 *                          the id if absent
 * @param packageIndex      the physical package P the zone's name gives ({@code package-P}, {@code package-P-die-D}); for
 *                          a sub-zone, its parent's
 * @param die               D of {@code package-P-die-D}; empty for a whole package
 * @param maxEnergyRangeUj  {@code max_energy_range_uj}, where {@code energy_uj} wraps to 0; 0 if unknown
 */
public record PowercapZone(String id, String name, int packageIndex, OptionalInt die, long maxEnergyRangeUj,
                           List<PowercapZone> subZones) {
    public PowercapZone {
        subZones = List.copyOf(subZones);
    }

    /** A whole package (no die). */
    public PowercapZone(String id, String name, int packageIndex, long maxEnergyRangeUj, List<PowercapZone> subZones) {
        this(id, name, packageIndex, OptionalInt.empty(), maxEnergyRangeUj, subZones);
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
