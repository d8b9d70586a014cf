package io.joulie.agent.power;

import java.util.OptionalDouble;

/**
 * One GPU board read now: its index and name, the power limit in force and the power drawn (watts), and its energy
 * counter (joules; NVML counts from the driver's load, an HTTP endpoint from wherever it likes).
 */
public record GpuSample(int index, String name, OptionalDouble capWatts, OptionalDouble powerWatts, OptionalDouble energyJoules) {
}
