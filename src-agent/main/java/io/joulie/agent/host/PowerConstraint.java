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

    /** {@code min_power_uw} if the zone reports a positive one; 0 or less counts as not reported. */
    public OptionalLong hardwareMinUw() {
        return positive(minPowerUw);
    }

    /** {@code max_power_uw} if the zone reports a positive one; 0 or less counts as not reported. */
    public OptionalLong hardwareMaxUw() {
        return positive(maxPowerUw);
    }

    /**
     * {@code uw} within [{@link #hardwareMinUw()}, {@code maxUw}]; a minimum the zone does not report does
     * not clamp. The caller supplies the maximum, because a missing one must not leave the value unbounded.
     */
    public long clamp(long uw, long maxUw) {
        return Math.min(Math.max(uw, hardwareMinUw().orElse(Long.MIN_VALUE)), maxUw);
    }

    private static OptionalLong positive(OptionalLong value) {
        return value.isPresent() && value.getAsLong() > 0 ? value : OptionalLong.empty();
    }
}
