package io.joulie.agent.runtime;

import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.Observed;
import io.joulie.agent.control.cpu.CpuBackend;
import io.joulie.agent.control.cpu.CpuControls;
import io.joulie.agent.control.cpu.HttpCpuControl;
import io.joulie.agent.k8s.AgentView;
import io.joulie.agent.k8s.StatusPublisher;
import io.joulie.agent.metrics.Action;
import io.joulie.agent.metrics.AgentMetrics;
import io.joulie.agent.power.PowerReader;
import io.joulie.agent.routing.Route;
import io.joulie.agent.routing.Routing;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.ControlType;
import io.joulie.api.v1alpha1.TelemetryProfileStatus.Result;
import io.micrometer.core.instrument.Timer;
import org.jboss.logging.Logger;

import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One node's reconcile: resolve the route, read package power, validate the NodePowerProfile (a bad one is
 * {@code blocked} and never reaches a backend), enforce the cap through the route's control, count the action
 * and publish the outcome. A node no longer served is let go (its HTTP control forgets what it sent, its meters
 * go); a node whose profile is gone, or whose control moves away from host, gets the host's limits back if the
 * agent had written them. Not thread-safe: the agent's worker calls it.
 */
final class NodeReconciler implements AgentLoop.Reconciler {
    private static final Logger LOG = Logger.getLogger(NodeReconciler.class);

    /** What the agent remembers about a node between reconciles. */
    private static final class Memory {
        /** A NodePowerProfile asked something of the node at the last reconcile. */
        boolean desired;
        /** The agent has written (or may have written) host limits for the node since they were last restored. */
        boolean hostTouched;
        /** The cap of the last valid performance profile of the node: no eco cap may be above it. */
        OptionalDouble performanceCap = OptionalDouble.empty();
    }

    private final ServedNodes served;
    private final AgentView view;
    private final CpuControls controls;
    private final PowerReader power;
    private final StatusPublisher status;
    private final AgentMetrics metrics;
    /** By node; concurrent, because the watches' threads list the nodes to visit (Memory is the worker's alone). */
    private final Map<String, Memory> nodes = new ConcurrentHashMap<>();

    NodeReconciler(ServedNodes served, AgentView view, CpuControls controls, PowerReader power, StatusPublisher status,
                   AgentMetrics metrics) {
        this.served = served;
        this.view = view;
        this.controls = controls;
        this.power = power;
        this.status = status;
        this.metrics = metrics;
    }

    /** Served nodes plus nodes still remembered (so a node that left is let go). */
    @Override
    public Set<String> nodesToVisit() {
        Set<String> visit = new LinkedHashSet<>(served.all());
        visit.addAll(nodes.keySet());
        return visit;
    }

    /**
     * @param periodic the re-check every AGENT_RECONCILE_INTERVAL: remote power sources are read again, and an
     *                 action that changes nothing is not counted
     */
    @Override
    public void reconcile(String node, boolean periodic) {
        Memory st = nodes.get(node);
        if (!served.serves(node)) {
            if (st != null) {
                nodes.remove(node);
                controls.forget(node);
                power.forget(node);
                status.forget(node);
                metrics.forget(node);
                LOG.infof("Node %s is no longer served by this agent", node);
            }
            return;
        }
        if (st == null) {
            st = new Memory();
            // Host limits an earlier agent process wrote and did not restore are undone like this agent's own: when the
            // node's NodePowerProfile is gone (also if it went while no agent ran) or its control leaves host.
            st.desired = st.hostTouched = controls.hostLeftByEarlierProcess();
            nodes.put(node, st);
        }
        Route route = Routing.resolve(view.telemetryProfiles(), node);
        if (route.cpuControl() != ControlType.HOST && st.hostTouched) {
            ControlOutcome restored = restoreHost(st);
            LOG.infof("Node %s: CPU control moved from host to %s; %s", node, route.cpuControl(), restored.message());
            metrics.outcome(node, Optional.of(Action.RESTORE), restored);
        }
        OptionalDouble watts = power.read(node, route, periodic);
        Optional<NodePowerProfile> npp = view.profileFor(node);
        Timer.Sample sample = Timer.start();
        ControlOutcome out;
        Optional<Action> kind;
        if (npp.isEmpty()) {
            if (!st.desired) {
                return; // nothing asked of this node, nothing to undo
            }
            st.desired = false;
            out = release(node, st, route);
            kind = Optional.of(Action.RESTORE);
        } else {
            st.desired = true;
            Optional<String> problem = NodePowerProfileValidator.problem(npp.get(), st.performanceCap);
            if (problem.isEmpty() && npp.get().getSpec().profile() == Profile.PERFORMANCE) {
                st.performanceCap = OptionalDouble.of(npp.get().getSpec().cpu().packagePowerCapWatts());
            }
            if (problem.isPresent()) {
                out = ControlOutcome.blocked(CpuControls.backend(route), problem.get(), controls.observedNow(route));
                kind = Optional.of(Action.APPLY);
            } else if (route.cpuControl() == ControlType.HOST && !controls.hostAvailable()) {
                out = ControlOutcome.blocked(CpuBackend.POWERCAP, "host control is not available in pool mode; "
                        + "set controls.cpu.type to http or none in a TelemetryProfile", Map.of());
                kind = Optional.of(Action.APPLY);
            } else {
                int rewritesBefore = controls.hostRewrites();
                out = controls.control(node, route).enforce(npp.get().getSpec().cpu().packagePowerCapWatts(), watts);
                if (route.cpuControl() == ControlType.HOST && out.result() != Result.BLOCKED && out.result() != Result.NONE) {
                    st.hostTouched = true;
                }
                boolean drift = controls.hostRewrites() > rewritesBefore;
                kind = drift ? Optional.of(Action.REAPPLY) : periodic ? Optional.empty() : Optional.of(Action.APPLY);
                if (drift) {
                    LOG.infof("Node %s: a long_term limit had changed behind the agent's back; rewritten", node);
                }
            }
        }
        sample.stop(metrics.applyTimer(node));
        Long generation = npp.map(p -> p.getMetadata().getGeneration()).orElse(null);
        if (generation != null) {
            // which NodePowerProfile this outcome answers: the operator labels the node performance only once the
            // performance cap of the generation in force is applied
            out = out.withObserved(Observed.PROFILE_GENERATION, generation);
        }
        if (watts.isPresent()) {
            out = out.withObserved(Observed.PACKAGE_POWER_WATTS, watts.getAsDouble());
        }
        Optional<String> refused = power.refusal(node);
        if (refused.isPresent()) {
            out = out.withMessage(out.message() + "; " + refused.get());
        }
        metrics.outcome(node, kind, out);
        status.publish(node, view.telemetryProfiles(), out);
    }

    /** The node's NodePowerProfile is gone: restore (host, JOULIE_RESTORE_ON_EXIT) or forget what was sent (http). */
    private ControlOutcome release(String node, Memory st, Route route) {
        ControlOutcome out;
        Optional<HttpCpuControl> http = controls.http(node);
        if (route.cpuControl() == ControlType.HTTP && http.isPresent()) {
            out = http.get().restore();
        } else if (st.hostTouched) {
            out = restoreHost(st);
            LOG.infof("Node %s: NodePowerProfile deleted; %s", node, out.message());
        } else {
            out = ControlOutcome.none(CpuControls.backend(route), "nothing to undo");
        }
        return out.withMessage("NodePowerProfile deleted; " + out.message());
    }

    /** Writes back the host limits found at start, if JOULIE_RESTORE_ON_EXIT allows; the node's host limits are no longer the agent's. */
    private ControlOutcome restoreHost(Memory st) {
        st.hostTouched = false;
        return controls.restoreHost();
    }
}
