package io.joulie.agent.control;

import io.joulie.agent.host.CapRequest;

/** What every control family's backends do: enforce a cap on a node, and undo it. Each family names its own port. */
public interface Control {
    /**
     * Enforces {@code cap} (validated: watts finite and &gt; 0, a percent in (0, 100]). Called on every change and every
     * periodic reconcile; an implementation writes only when the enforced state differs from the desired one.
     *
     * @param facts the latest package power reading (drives the DVFS loops) and the hardware the telemetry describes
     */
    ControlOutcome enforce(CapRequest cap, NodeFacts facts);

    /** Puts back what was found at start (host) or forgets what was sent (http). */
    ControlOutcome restore();
}
