package io.joulie.agent.host;

import java.util.Arrays;

/**
 * NVML's return codes ({@code nvmlReturn_t}, nvml.h), each with what it means to an admin reading a status, and
 * whether retrying can help: a refusal by the driver (no permission, not supported on this board) blocks a cap,
 * anything else is an error.
 */
public enum NvmlReturn {
    SUCCESS(0, "success"),
    ERROR_UNINITIALIZED(1, "NVML was not initialised"),
    ERROR_INVALID_ARGUMENT(2, "invalid argument (a board index that does not exist, or a limit outside the board's constraints)"),
    ERROR_NOT_SUPPORTED(3, "not supported on this board"),
    ERROR_NO_PERMISSION(4, "no permission (setting a power limit needs root or CAP_SYS_ADMIN on the host's driver)"),
    ERROR_ALREADY_INITIALIZED(5, "already initialised"),
    ERROR_NOT_FOUND(6, "not found"),
    ERROR_INSUFFICIENT_SIZE(7, "buffer too small"),
    ERROR_INSUFFICIENT_POWER(8, "the board's external power cables are not connected"),
    ERROR_DRIVER_NOT_LOADED(9, "the NVIDIA driver is not loaded"),
    ERROR_TIMEOUT(10, "timed out"),
    ERROR_IRQ_ISSUE(11, "the kernel detected an interrupt problem with the board"),
    ERROR_LIBRARY_NOT_FOUND(12, "a library NVML needs was not found"),
    ERROR_FUNCTION_NOT_FOUND(13, "this NVML has no such function (driver too old)"),
    ERROR_CORRUPTED_INFOROM(14, "the board's infoROM is corrupted"),
    ERROR_GPU_IS_LOST(15, "the board has fallen off the bus or is otherwise inaccessible"),
    ERROR_RESET_REQUIRED(16, "the board needs a reset"),
    ERROR_OPERATING_SYSTEM(17, "the operating system blocked the call"),
    ERROR_LIB_RM_VERSION_MISMATCH(18, "the NVML library and the kernel driver versions differ"),
    ERROR_IN_USE(19, "the board is in use"),
    ERROR_MEMORY(20, "out of memory"),
    ERROR_NO_DATA(21, "no data"),
    ERROR_VGPU_ECC_NOT_SUPPORTED(22, "not available with ECC enabled (vGPU)"),
    ERROR_INSUFFICIENT_RESOURCES(23, "out of driver resources"),
    ERROR_FREQ_NOT_SUPPORTED(24, "frequency not supported"),
    ERROR_ARGUMENT_VERSION_MISMATCH(25, "argument version not supported"),
    ERROR_DEPRECATED(26, "deprecated"),
    ERROR_NOT_READY(27, "the system is not ready"),
    ERROR_GPU_NOT_FOUND(28, "no GPU found"),
    ERROR_INVALID_STATE(29, "the board is not in a state to do this"),
    ERROR_RESET_TYPE_NOT_SUPPORTED(30, "reset type not supported"),
    ERROR_UNKNOWN(999, "an internal driver error occurred");

    private final int code;
    private final String meaning;

    NvmlReturn(int code, String meaning) {
        this.code = code;
        this.meaning = meaning;
    }

    public int code() {
        return code;
    }

    public String meaning() {
        return meaning;
    }

    /** The driver refuses (no permission, not supported): a cap is blocked, trying again will not help. */
    public boolean refused() {
        return this == ERROR_NO_PERMISSION || this == ERROR_NOT_SUPPORTED;
    }

    /** {@code "NVML_ERROR_NO_PERMISSION (4): no permission (...)"}; a code NVML has added since reads as unknown. */
    public static String describe(int code) {
        return Arrays.stream(values()).filter(r -> r.code == code).findFirst()
                .map(r -> "NVML_" + r.name() + " (" + code + "): " + r.meaning)
                .orElse("nvmlReturn_t " + code + " (not known to this agent)");
    }

    /** The constant for {@code code}; {@link #ERROR_UNKNOWN} for a code this agent does not know. */
    public static NvmlReturn of(int code) {
        return Arrays.stream(values()).filter(r -> r.code == code).findFirst().orElse(ERROR_UNKNOWN);
    }
}
