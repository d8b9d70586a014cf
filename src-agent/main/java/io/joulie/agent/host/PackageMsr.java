package io.joulie.agent.host;

import java.util.Optional;
import java.util.OptionalDouble;

/**
 * A package's RAPL registers, read through the MSR device.
 *
 * @param energyCounter bits 31:0 of the package energy status register, in energy units
 * @param powerLimit    the package power limit register; empty where the CPU has none (AMD)
 * @param tdpWatts      the thermal spec power of the package power info register (Intel MSR 0x614, bits 14:0 in power
 *                      units); empty where the CPU has none (AMD) or it reads 0
 */
public record PackageMsr(Units units, long energyCounter, Optional<PowerLimit> powerLimit, OptionalDouble tdpWatts) {
    /** The thermal spec power of a raw package power info register. */
    public static OptionalDouble tdp(long powerInfo, Units units) {
        long field = powerInfo & 0x7FFF;
        return field > 0 ? OptionalDouble.of(field * units.powerWatts()) : OptionalDouble.empty();
    }

    public double energyJoules() {
        return energyCounter * units.energyJoules();
    }

    /** The RAPL power unit register: power unit = 1/2^(bits 3:0) W, energy unit = 1/2^(bits 12:8) J. */
    public record Units(double powerWatts, double energyJoules) {
        public static Units decode(long raw) {
            return new Units(1.0 / (1L << (raw & 0xF)), 1.0 / (1L << ((raw >>> 8) & 0x1F)));
        }
    }

    /**
     * The package power limit register (Intel MSR 0x610): PL1 in bits 14:0 with enable bit 15, PL2 in bits
     * 46:32 with enable bit 47, both in power units; bit 63 locks the register until reset.
     */
    public record PowerLimit(double pl1Watts, boolean pl1Enabled, double pl2Watts, boolean pl2Enabled, boolean locked) {
        public static final int LOCK_BIT = 63;

        public static PowerLimit decode(long raw, Units units) {
            return new PowerLimit((raw & 0x7FFF) * units.powerWatts(), bit(raw, 15),
                    ((raw >>> 32) & 0x7FFF) * units.powerWatts(), bit(raw, 47), bit(raw, LOCK_BIT));
        }

        private static boolean bit(long raw, int bit) {
            return (raw >>> bit & 1) == 1;
        }
    }
}
