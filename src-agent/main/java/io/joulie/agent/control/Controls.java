package io.joulie.agent.control;

import io.joulie.agent.routing.Route;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.ControlType;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * Which control of one family acts on a node for the control type its route names: the host's (one per agent; absent
 * in pool mode), an HTTP control per node (kept, so it remembers what its endpoint acknowledged; it follows the
 * route's current settings) or none. Also the policy of putting the host's limits back (JOULIE_RESTORE_ON_EXIT). Not
 * thread-safe: the agent's worker calls it.
 *
 * @param <C> the family's control port
 * @param <H> its HTTP control
 * @param <S> the HTTP control's settings in a TelemetryProfile
 */
public abstract class Controls<C extends Control, H extends C, S> {
    /** Makes the HTTP control of a node, with the route's settings. */
    @FunctionalInterface
    public interface HttpControls<H, S> {
        H create(String node, S settings);
    }

    /** The backend each control type reports as. */
    public record Backends(Backend host, Backend http, Backend none) {
        public Backend of(ControlType type) {
            return switch (type) {
                case HOST -> host;
                case HTTP -> http;
                case NONE -> none;
            };
        }
    }

    private final C host;
    private final HostControl hostControl;
    private final C none;
    private final HttpControls<H, S> httpControls;
    private final BiConsumer<H, S> followSettings;
    private final Backends backends;
    private final boolean restoreOnExit;
    private final Map<String, H> http = new HashMap<>();

    /**
     * @param host          the host's control; null where the agent has no host access (pool mode)
     * @param restoreOnExit JOULIE_RESTORE_ON_EXIT: put back the limits found at start when the agent lets go of them
     */
    protected <X extends HostControl> Controls(X host, Class<C> port, C none, HttpControls<H, S> httpControls,
                                               BiConsumer<H, S> followSettings, Backends backends, boolean restoreOnExit) {
        this.host = host == null ? null : port.cast(host);
        this.hostControl = host;
        this.none = none;
        this.httpControls = httpControls;
        this.followSettings = followSettings;
        this.backends = backends;
        this.restoreOnExit = restoreOnExit;
    }

    /** Whether this agent can control the host (node mode). */
    public boolean hostAvailable() {
        return host != null;
    }

    /** The family these controls act on. */
    public abstract Family family();

    /** The control type the route names for this family. */
    public abstract ControlType type(Route route);

    /** The HTTP settings the route names for this family (null when it names none). */
    protected abstract S httpSettings(Route route);

    /** The control for {@code node} on its route; an HTTP control follows the route's current settings. */
    public C control(String node, Route route) {
        return switch (type(route)) {
            case HOST -> host;
            case HTTP -> {
                H control = http.get(node);
                if (control == null) {
                    control = httpControls.create(node, httpSettings(route));
                    http.put(node, control);
                } else {
                    followSettings.accept(control, httpSettings(route));
                }
                yield control;
            }
            case NONE -> none;
        };
    }

    /** The backend that acts on the route, for an outcome reported without acting. */
    public Backend backend(Route route) {
        return backends.of(type(route));
    }

    /** What is in force on the route now (the host's limits), for an outcome reported without acting. */
    public Map<Observed, Double> observedNow(Route route) {
        return type(route) == ControlType.HOST && hostControl != null ? hostControl.observedNow() : Map.of();
    }

    /** An earlier agent process of this boot wrote host limits and did not restore them: they are this agent's to undo. */
    public boolean hostLeftByEarlierProcess() {
        return hostControl != null && hostControl.leftByEarlierProcess();
    }

    /** How many limits found changed behind the agent's back the host control has put back so far. */
    public int hostRewrites() {
        return hostControl == null ? 0 : hostControl.rewrites();
    }

    /** The node's HTTP control, if it has been used. */
    public Optional<H> http(String node) {
        return Optional.ofNullable(http.get(node));
    }

    /** Puts back the host limits found at start, if JOULIE_RESTORE_ON_EXIT allows; else says they stay. */
    public ControlOutcome restoreHost() {
        if (!restoreOnExit) {
            return ControlOutcome.none(backends.host(), "limits left in place (JOULIE_RESTORE_ON_EXIT=false)");
        }
        return host.restore().restored();
    }

    /** At shutdown: the host limits found at start, if there is host control and JOULIE_RESTORE_ON_EXIT allows. */
    public Optional<ControlOutcome> restoreOnExit() {
        return host != null && restoreOnExit ? Optional.of(host.restore().restored()) : Optional.empty();
    }

    /** A node this agent no longer serves: its HTTP control forgets what it sent, and is dropped. */
    public void forget(String node) {
        H control = http.remove(node);
        if (control != null) {
            control.restore();
        }
    }
}
