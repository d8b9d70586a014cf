package io.joulie.agent.routing;

import io.joulie.api.v1alpha1.TelemetryProfileSpec.ControlType;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.CpuHttpControl;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.Source;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.SourceType;

/**
 * How a node's CPU is controlled and its package power read, resolved from the TelemetryProfiles.
 *
 * @param cpuHttp     the http settings when {@code cpuControl} is http (may be null if the profile lacks them)
 * @param cpuSourceSpec the source settings (http endpoint or prometheus query) when the source needs them
 * @param controlFrom name of the TelemetryProfile the control came from, "" for the built-in default
 */
public record Route(ControlType cpuControl, CpuHttpControl cpuHttp, SourceType cpuSource, Source cpuSourceSpec,
                    String controlFrom, String sourceFrom) {
}
