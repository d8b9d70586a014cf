package io.joulie.agent.control.cpu;

import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.NodeFacts;
import io.joulie.agent.host.CapRequest;

/** Control type none: the agent reports and never acts. */
public final class NoneCpuControl implements CpuControl {
    @Override
    public ControlOutcome enforce(CapRequest cap, NodeFacts facts) {
        return ControlOutcome.none(CpuBackend.NONE, "cpu control is disabled (controls.cpu.type none)");
    }

    @Override
    public ControlOutcome restore() {
        return ControlOutcome.none(CpuBackend.NONE, "cpu control is disabled (controls.cpu.type none)");
    }
}
