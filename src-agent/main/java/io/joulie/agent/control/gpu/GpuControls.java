package io.joulie.agent.control.gpu;

import io.joulie.agent.control.Controls;
import io.joulie.agent.control.Family;
import io.joulie.agent.routing.Route;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.ControlType;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.GpuHttpControl;

/** The GPU family's {@link Controls}: NVML on the host, HTTP, none. */
public final class GpuControls extends Controls<GpuControl, HttpGpuControl, GpuHttpControl> {
    /**
     * @param host          the host's control; null where the agent has no host access (pool mode)
     * @param restoreOnExit JOULIE_RESTORE_ON_EXIT: put back the limits found at start when the agent lets go of them
     */
    public GpuControls(HostGpuControl host, Controls.HttpControls<HttpGpuControl, GpuHttpControl> httpControls, boolean restoreOnExit) {
        super(host, GpuControl.class, new NoneGpuControl(), httpControls, HttpGpuControl::settings,
                new Backends(GpuBackend.NVML, GpuBackend.HTTP, GpuBackend.NONE), restoreOnExit);
    }

    @Override
    public Family family() {
        return Family.GPU;
    }

    @Override
    public ControlType type(Route route) {
        return route.gpu().control();
    }

    @Override
    protected GpuHttpControl httpSettings(Route route) {
        return route.gpu().http();
    }
}
