package io.joulie.agent.control.cpu;

import io.joulie.agent.control.ControlOutcome;

import java.util.OptionalDouble;

/** A way to enforce a node's CPU package power cap: host (powercap, DVFS fallback), http or none. */
public interface CpuControl {
    /**
     * Enforces {@code capWatts} (validated: finite and &gt; 0). Called on every change and every periodic
     * reconcile; an implementation writes only when the enforced state differs from the desired one.
     *
     * @param packageWatts the latest package power reading, if any (drives the DVFS loops)
     */
    ControlOutcome enforce(double capWatts, OptionalDouble packageWatts);

    /** Puts back what was found at start (host) or forgets what was sent (http). */
    ControlOutcome restore();
}
