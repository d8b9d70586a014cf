package io.joulie.agent.host;

/** A board read now: the limit in force and the power drawn (mW), the energy counter (mJ since the driver loaded). */
public record GpuReading(int index, long limitMw, long powerMw, long energyMj) {
}
