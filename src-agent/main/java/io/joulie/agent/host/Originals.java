package io.joulie.agent.host;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the agent found on the hardware before its first write, for one boot of the node: the long_term RAPL limits
 * and the cpufreq ceilings that a restore writes back.
 *
 * @param bootId         the kernel's boot id when they were found ({@code /proc/sys/kernel/random/boot_id}); empty
 *                       when it could not be read
 * @param powercap       the long_term limit of every package zone
 * @param cpufreqMaxKHz  {@code scaling_max_freq} of every cpufreq policy, by policy number
 */
public record Originals(Optional<String> bootId, List<LimitSnapshot> powercap, Map<Integer, Long> cpufreqMaxKHz) {
    public Originals {
        powercap = List.copyOf(powercap);
        cpufreqMaxKHz = java.util.Collections.unmodifiableMap(new TreeMap<>(cpufreqMaxKHz));
    }

    /** The originals an opened host holds ({@link Powercap#snapshot()}, {@link CpufreqPolicy#originalScalingMaxKHz()}). */
    public static Originals of(Optional<String> bootId, Powercap powercap, Cpufreq cpufreq) {
        Map<Integer, Long> ceilings = new TreeMap<>();
        cpufreq.policies().forEach(p -> ceilings.put(p.id(), p.originalScalingMaxKHz()));
        return new Originals(bootId, powercap.snapshot(), ceilings);
    }
}
