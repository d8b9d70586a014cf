package io.joulie.agent.host;

import java.io.IOException;
import java.util.OptionalInt;

/** An NVML call returned something other than NVML_SUCCESS: which call, on which board, and what the code means. */
public final class NvmlException extends IOException {
    private final String function;
    private final OptionalInt board;
    private final int code;

    public NvmlException(String function, OptionalInt board, int code) {
        super((board.isPresent() ? "GPU " + board.getAsInt() + ": " : "") + function + ": " + NvmlReturn.describe(code));
        this.function = function;
        this.board = board;
        this.code = code;
    }

    public String function() {
        return function;
    }

    public OptionalInt board() {
        return board;
    }

    public int code() {
        return code;
    }

    public NvmlReturn error() {
        return NvmlReturn.of(code);
    }
}
