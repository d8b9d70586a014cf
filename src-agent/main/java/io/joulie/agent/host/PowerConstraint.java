package io.joulie.agent.host;

import java.util.OptionalLong;

/**
 * One {@code constraint_N_*} group of a powercap zone. Optional values are empty when the file is absent
 * or the kernel cannot report them (ENODATA).
 *
 * @param name the {@code constraint_N_name} ({@code long_term}, {@code short_term}, {@code peak_power}), "" if absent
 */
public record PowerConstraint(int index, String name, long powerLimitUw, OptionalLong minPowerUw,
                              OptionalLong maxPowerUw, OptionalLong timeWindowUs) {
    public static final String LONG_TERM = "long_term";

    public boolean isLongTerm() {
        return LONG_TERM.equals(name);
    }

    /** {@code uw} within [min_power_uw, max_power_uw]; a bound the zone does not report does not clamp. */
    public long clamp(long uw) {
        long atLeastMin = Math.max(uw, minPowerUw.orElse(Long.MIN_VALUE));
        return Math.min(atLeastMin, maxPowerUw.orElse(Long.MAX_VALUE));
    }
}
