package io.joulie.agent.backend;

import java.util.OptionalDouble;

/** Control type none: the agent reports and never acts. */
public final class NoneCpuControl implements CpuControl {
    public static final String BACKEND = "none";

    @Override
    public ControlOutcome enforce(double capWatts, OptionalDouble packageWatts) {
        return ControlOutcome.none(BACKEND, "cpu control is disabled (controls.cpu.type none)");
    }

    @Override
    public ControlOutcome restore() {
        return ControlOutcome.none(BACKEND, "cpu control is disabled (controls.cpu.type none)");
    }
}
