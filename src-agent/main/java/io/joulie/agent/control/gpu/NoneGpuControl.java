package io.joulie.agent.control.gpu;

import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.NodeFacts;
import io.joulie.agent.host.CapRequest;

/** Control type none: the agent reports and never acts. */
public final class NoneGpuControl implements GpuControl {
    private static final String DISABLED = "gpu control is disabled (controls.gpu.type none)";

    @Override
    public ControlOutcome enforce(CapRequest cap, NodeFacts facts) {
        return ControlOutcome.none(GpuBackend.NONE, DISABLED);
    }

    @Override
    public ControlOutcome restore() {
        return ControlOutcome.none(GpuBackend.NONE, DISABLED);
    }
}
