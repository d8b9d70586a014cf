package io.joulie.agent.routing;

import io.joulie.api.v1alpha1.TelemetryProfileSpec.ControlType;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.CpuHttpControl;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.GpuHttpControl;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.Source;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.SourceType;

/**
 * How a node's CPU and GPUs are controlled and their power read, resolved from the TelemetryProfiles.
 *
 * @param cpuHttp       the http settings when {@code cpuControl} is http (may be null if the profile lacks them)
 * @param cpuSourceSpec the source settings (http endpoint or prometheus query) when the source needs them
 * @param controlFrom   name of the TelemetryProfile the control came from, "" for the built-in default
 */
public record Route(ControlType cpuControl, CpuHttpControl cpuHttp, SourceType cpuSource, Source cpuSourceSpec,
                    String controlFrom, String sourceFrom, GpuRoute gpu) {

    /** A route whose GPUs take the default (host control, host source). */
    public Route(ControlType cpuControl, CpuHttpControl cpuHttp, SourceType cpuSource, Source cpuSourceSpec, String controlFrom,
                 String sourceFrom) {
        this(cpuControl, cpuHttp, cpuSource, cpuSourceSpec, controlFrom, sourceFrom, GpuRoute.DEFAULT);
    }

    /**
     * The GPU family's route.
     *
     * @param http       the http settings when {@code control} is http
     * @param sourceSpec the source settings when {@code source} is http
     */
    public record GpuRoute(ControlType control, GpuHttpControl http, SourceType source, Source sourceSpec) {
        public static final GpuRoute DEFAULT = new GpuRoute(ControlType.HOST, null, SourceType.HOST, null);
    }
}
