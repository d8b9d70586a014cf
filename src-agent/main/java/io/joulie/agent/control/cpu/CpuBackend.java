package io.joulie.agent.control.cpu;

import io.joulie.agent.control.Backend;

import java.util.Locale;

/** The ways a node's CPU power is controlled (docs/agent.md, "Backends"). */
public enum CpuBackend implements Backend {
    /** RAPL long_term limits through powercap. */
    POWERCAP,
    /** The DVFS loop over cpufreq ceilings, when no RAPL limit can be written. */
    DVFS,
    /** An HTTP endpoint (simulators). */
    HTTP,
    /** Control disabled: report only. */
    NONE;

    @Override
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
