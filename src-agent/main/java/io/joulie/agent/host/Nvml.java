package io.joulie.agent.host;

/**
 * The NVIDIA Management Library as the agent uses it: the boards by index, their power-limit constraints, limits,
 * power and energy, and setting a limit. One method per NVML call (docs/agent-host.md lists them); values in NVML's
 * units (milliwatts, millijoules). Every failure is an {@link NvmlException} carrying NVML's return code. Opened on
 * {@code nvmlInit_v2}, closed with {@code nvmlShutdown}. The implementation is FFM ({@code host.ffm.FfmNvml}); where
 * the library cannot be loaded there is no Nvml and the GPUs are {@link Gpus#absent}.
 */
public interface Nvml extends AutoCloseable {
    /** {@code nvmlDeviceGetCount_v2}. */
    int deviceCount() throws NvmlException;

    /** {@code nvmlDeviceGetName}. */
    String name(int board) throws NvmlException;

    /** {@code nvmlDeviceGetPowerManagementLimitConstraints}: the lowest and highest limit the board accepts, mW. */
    Constraints constraints(int board) throws NvmlException;

    /** {@code nvmlDeviceGetPowerManagementDefaultLimit}, mW. */
    long defaultLimitMw(int board) throws NvmlException;

    /** {@code nvmlDeviceGetPowerManagementLimit}: the limit in force, mW. */
    long limitMw(int board) throws NvmlException;

    /** {@code nvmlDeviceSetPowerManagementLimit}, mW. */
    void setLimitMw(int board, long milliwatts) throws NvmlException;

    /** {@code nvmlDeviceGetPowerUsage}: the board's power draw, mW. */
    long powerMw(int board) throws NvmlException;

    /** {@code nvmlDeviceGetTotalEnergyConsumption}: energy since the driver was loaded, mJ. */
    long energyMj(int board) throws NvmlException;

    /** {@code nvmlShutdown}; a failure is only logged by the caller's caller, the process is leaving NVML anyway. */
    @Override
    void close();

    /** The limits a board accepts, mW. */
    record Constraints(long minMw, long maxMw) {
    }
}
