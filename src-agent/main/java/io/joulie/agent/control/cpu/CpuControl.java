package io.joulie.agent.control.cpu;

import io.joulie.agent.control.Control;
import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.NodeFacts;
import io.joulie.agent.host.CapRequest;

import java.util.OptionalDouble;

/** A way to enforce a node's CPU package power cap: host (powercap, DVFS fallback), http or none. */
public interface CpuControl extends Control {
    /** {@link #enforce(CapRequest, NodeFacts)} of a node cap in watts. */
    default ControlOutcome enforce(double capWatts, OptionalDouble packageWatts) {
        return enforce(new CapRequest.Watts(capWatts), NodeFacts.of(packageWatts));
    }
}
