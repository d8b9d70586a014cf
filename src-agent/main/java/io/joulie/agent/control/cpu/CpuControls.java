package io.joulie.agent.control.cpu;

import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.Observed;
import io.joulie.agent.routing.Route;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.ControlType;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.CpuHttpControl;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Which {@link CpuControl} acts on a node for its route: the host's (one per agent; absent in pool mode), an HTTP
 * control per node (kept, so it remembers what its endpoint acknowledged) or none. Also the policy of putting
 * the host's limits back (JOULIE_RESTORE_ON_EXIT). Not thread-safe: the agent's worker calls it.
 */
public final class CpuControls {
    /** Makes the HTTP control of a node, with the route's settings. */
    @FunctionalInterface
    public interface HttpControls {
        HttpCpuControl create(String node, CpuHttpControl settings);
    }

    private static final CpuControl NONE = new NoneCpuControl();

    private final HostCpuControl host;
    private final HttpControls httpControls;
    private final boolean restoreOnExit;
    private final Map<String, HttpCpuControl> http = new HashMap<>();

    /**
     * @param host          the host's control; null where the agent has no host access (pool mode)
     * @param restoreOnExit JOULIE_RESTORE_ON_EXIT: put back the limits found at start when the agent lets go of them
     */
    public CpuControls(HostCpuControl host, HttpControls httpControls, boolean restoreOnExit) {
        this.host = host;
        this.httpControls = httpControls;
        this.restoreOnExit = restoreOnExit;
    }

    /** Whether this agent can control the host's CPU (node mode). */
    public boolean hostAvailable() {
        return host != null;
    }

    /** The control for {@code node} on {@code route}; an HTTP control follows the route's current settings. */
    public CpuControl control(String node, Route route) {
        return switch (route.cpuControl()) {
            case HOST -> host;
            case HTTP -> {
                HttpCpuControl control = http.get(node);
                if (control == null) {
                    control = httpControls.create(node, route.cpuHttp());
                    http.put(node, control);
                } else {
                    control.settings(route.cpuHttp());
                }
                yield control;
            }
            case NONE -> NONE;
        };
    }

    /** The backend that acts on the route, for an outcome reported without acting. */
    public static CpuBackend backend(Route route) {
        return switch (route.cpuControl()) {
            case HOST -> CpuBackend.POWERCAP;
            case HTTP -> CpuBackend.HTTP;
            case NONE -> CpuBackend.NONE;
        };
    }

    /** What is in force on the route now (the host's limits), for an outcome reported without acting. */
    public Map<Observed, Double> observedNow(Route route) {
        return route.cpuControl() == ControlType.HOST && host != null
                ? host.observedNow() : Map.of();
    }

    /** An earlier agent process of this boot wrote host limits and did not restore them: they are this agent's to undo. */
    public boolean hostLeftByEarlierProcess() {
        return host != null && host.leftByEarlierProcess();
    }

    /** How many limits found changed behind the agent's back the host control has put back so far. */
    public int hostRewrites() {
        return host == null ? 0 : host.rewrites();
    }

    /** The node's HTTP control, if it has been used. */
    public Optional<HttpCpuControl> http(String node) {
        return Optional.ofNullable(http.get(node));
    }

    /** Puts back the host limits found at start, if JOULIE_RESTORE_ON_EXIT allows; else says they stay. */
    public ControlOutcome restoreHost() {
        if (!restoreOnExit) {
            return ControlOutcome.none(CpuBackend.POWERCAP, "limits left in place (JOULIE_RESTORE_ON_EXIT=false)");
        }
        return host.restore();
    }

    /** At shutdown: the host limits found at start, if there is host control and JOULIE_RESTORE_ON_EXIT allows. */
    public Optional<ControlOutcome> restoreOnExit() {
        return host != null && restoreOnExit ? Optional.of(host.restore()) : Optional.empty();
    }

    /** A node this agent no longer serves: its HTTP control forgets what it sent, and is dropped. */
    public void forget(String node) {
        HttpCpuControl control = http.remove(node);
        if (control != null) {
            control.restore();
        }
    }
}
