package io.joulie.agent.host;

import java.io.IOException;
import java.util.OptionalInt;

/** An NVML call returned something other than NVML_SUCCESS: which call, on which board, and what the code means. */
public final class NvmlException extends IOException {
    private final int code;

    public NvmlException(String function, OptionalInt board, int code) {
        super((board.isPresent() ? "GPU " + board.getAsInt() + ": " : "") + function + ": " + NvmlReturn.describe(code));
        this.code = code;
    }

    public NvmlReturn error() {
        return NvmlReturn.of(code);
    }
}
