package io.joulie.agent.host;

import java.util.OptionalLong;

/**
 * A board read now: the limit in force and the power drawn (mW), the energy counter (mJ since the driver loaded);
 * no energy where the board has no counter ({@code nvmlDeviceGetTotalEnergyConsumption} is for Volta and newer
 * boards, older ones answer {@code NVML_ERROR_NOT_SUPPORTED}).
 */
public record GpuReading(int index, long limitMw, long powerMw, OptionalLong energyMj) {
    /** A board with an energy counter. */
    public GpuReading(int index, long limitMw, long powerMw, long energyMj) {
        this(index, limitMw, powerMw, OptionalLong.of(energyMj));
    }
}
