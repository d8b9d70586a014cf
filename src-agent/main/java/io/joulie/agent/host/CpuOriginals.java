package io.joulie.agent.host;

import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the agent found on the CPU side before its first write: the long_term RAPL limits and the cpufreq ceilings that
 * a restore writes back.
 *
 * @param powercap      the long_term limit of every package zone
 * @param cpufreqMaxKHz {@code scaling_max_freq} of every cpufreq policy, by policy number
 */
public record CpuOriginals(List<LimitSnapshot> powercap, Map<Integer, Long> cpufreqMaxKHz) {
    public CpuOriginals {
        powercap = List.copyOf(powercap);
        cpufreqMaxKHz = Collections.unmodifiableMap(new TreeMap<>(cpufreqMaxKHz));
    }

    /** The originals an opened host holds ({@link Powercap#snapshot()}, {@link CpufreqPolicy#originalScalingMaxKHz()}). */
    public static CpuOriginals of(Powercap powercap, Cpufreq cpufreq) {
        Map<Integer, Long> ceilings = new TreeMap<>();
        cpufreq.policies().forEach(p -> ceilings.put(p.id(), p.originalScalingMaxKHz()));
        return new CpuOriginals(powercap.snapshot(), ceilings);
    }

    /** Reads what is in force now as the host's originals ({@link Powercap#recordOriginals()}, likewise cpufreq). */
    public static CpuOriginals inForce(Powercap powercap, Cpufreq cpufreq) throws IOException {
        powercap.recordOriginals();
        cpufreq.recordOriginals();
        return of(powercap, cpufreq);
    }
}
