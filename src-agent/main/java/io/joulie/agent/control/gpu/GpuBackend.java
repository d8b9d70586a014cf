package io.joulie.agent.control.gpu;

import io.joulie.agent.control.Backend;

import java.util.Locale;

/** The ways a node's GPU boards are power-capped (docs/agent.md, "GPU control"). */
public enum GpuBackend implements Backend {
    /** NVML power limits through libnvidia-ml. */
    NVML,
    /** An HTTP endpoint (simulators): {@code gpu.set_power_cap_watts}. */
    HTTP,
    /** Control disabled: report only. */
    NONE;

    @Override
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
