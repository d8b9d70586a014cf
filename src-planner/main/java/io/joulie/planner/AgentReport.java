package io.joulie.planner;

import io.joulie.api.v1alpha1.TelemetryProfileStatus.Result;

import java.util.OptionalDouble;

/**
 * What a node's agent last reported about its CPU cap ({@code TelemetryProfile.status.control.cpu}).
 *
 * @param result            applied, blocked, error or none; null when the report has none the operator knows
 * @param profileGeneration the {@code metadata.generation} of the NodePowerProfile the agent acted on (0 when the report
 *                          names none)
 * @param appliedWatts      the node cap the agent found in force after acting (its {@code capWatts})
 * @param throttlePct       the DVFS throttle it holds (0 when it reports none)
 * @param message           what it said
 */
public record AgentReport(Result result, long profileGeneration, OptionalDouble appliedWatts, double throttlePct,
                          String message) {
    /** No agent reports for the node: no node-scoped TelemetryProfile, or one without a CPU result. */
    public static final AgentReport NONE = new AgentReport(null, 0, OptionalDouble.empty(), 0, "");

    public AgentReport {
        message = message == null ? "" : message;
    }

    /** Whether an agent reported at all ({@link #NONE} is the one value that says it did not). */
    public boolean reported() {
        return this != NONE;
    }
}
