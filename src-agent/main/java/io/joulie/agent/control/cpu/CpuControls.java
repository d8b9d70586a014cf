package io.joulie.agent.control.cpu;

import io.joulie.agent.control.Controls;
import io.joulie.agent.control.Family;
import io.joulie.agent.routing.Route;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.ControlType;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.CpuHttpControl;

/** The CPU family's {@link Controls}: RAPL on the host (DVFS fallback), HTTP, none. */
public final class CpuControls extends Controls<CpuControl, HttpCpuControl, CpuHttpControl> {
    /** Makes the HTTP control of a node, with the route's settings. */
    @FunctionalInterface
    public interface HttpControls extends Controls.HttpControls<HttpCpuControl, CpuHttpControl> {
    }

    /**
     * @param host          the host's control; null where the agent has no host access (pool mode)
     * @param restoreOnExit JOULIE_RESTORE_ON_EXIT: put back the limits found at start when the agent lets go of them
     */
    public CpuControls(HostCpuControl host, HttpControls httpControls, boolean restoreOnExit) {
        super(host, CpuControl.class, new NoneCpuControl(), httpControls, HttpCpuControl::settings,
                new Backends(CpuBackend.POWERCAP, CpuBackend.HTTP, CpuBackend.NONE), restoreOnExit);
    }

    @Override
    public Family family() {
        return Family.CPU;
    }

    @Override
    public ControlType type(Route route) {
        return route.cpuControl();
    }

    @Override
    protected CpuHttpControl httpSettings(Route route) {
        return route.cpuHttp();
    }
}
