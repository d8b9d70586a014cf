package io.joulie.agent.host;

/** A GPU board as found at start: its index, name and the power limits it accepts (NVML's constraints), in mW. */
public record GpuBoard(int index, String name, long minMw, long maxMw, long defaultMw) {
    /** {@code mw} within the board's constraints. */
    public long clamp(long mw) {
        return Math.clamp(mw, minMw, maxMw);
    }
}
