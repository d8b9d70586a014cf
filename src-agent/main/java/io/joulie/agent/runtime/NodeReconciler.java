package io.joulie.agent.runtime;

import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.Controls;
import io.joulie.agent.control.Family;
import io.joulie.agent.control.NodeFacts;
import io.joulie.agent.control.Observed;
import io.joulie.agent.control.cpu.CpuControls;
import io.joulie.agent.control.gpu.GpuControls;
import io.joulie.agent.host.CapRequest;
import io.joulie.agent.k8s.AgentView;
import io.joulie.agent.k8s.HardwarePublisher;
import io.joulie.agent.k8s.StatusPublisher;
import io.joulie.agent.metrics.Action;
import io.joulie.agent.metrics.AgentMetrics;
import io.joulie.agent.power.GpuSample;
import io.joulie.agent.power.NodeTelemetry;
import io.joulie.agent.routing.Route;
import io.joulie.agent.routing.Routing;
import io.joulie.api.v1alpha1.ControlResult;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileStatus.Device;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.ControlType;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.SourceType;
import io.micrometer.core.instrument.Timer;
import org.jboss.logging.Logger;

import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One node's reconcile: resolve the route, read package and GPU power, then per control family (CPU packages, GPU
 * boards) validate what the NodePowerProfile asks (a bad part is {@code blocked} and never reaches a backend; the
 * other family goes on), enforce it through the route's control, count the action and publish the outcome; last,
 * publish the node's hardware inventory. A node no longer served is let go (its HTTP controls forget what they sent,
 * its meters go); a family whose profile part is gone, or whose control moves away from host, gets the host's limits
 * back if the agent had written them. Not thread-safe: the agent's worker calls it.
 */
final class NodeReconciler implements AgentLoop.Reconciler {
    private static final Logger LOG = Logger.getLogger(NodeReconciler.class);

    /** What the agent remembers about one family of a node between reconciles. */
    private static final class Memory {
        /** The NodePowerProfile asked something of the family at the last reconcile. */
        boolean desired;
        /** The agent has written (or may have written) host limits for the family since they were last restored. */
        boolean hostTouched;
        /** The family's cap in the last valid performance profile of the node: no eco cap may be above it. */
        Optional<CapRequest> performanceCap = Optional.empty();
    }

    private final ServedNodes served;
    private final AgentView view;
    private final CpuControls cpu;
    private final GpuControls gpu;
    private final NodeTelemetry telemetry;
    private final StatusPublisher status;
    private final HardwarePublisher hardware;
    private final AgentMetrics metrics;
    /** By node; concurrent, because the watches' threads list the nodes to visit (Memory is the worker's alone). */
    private final Map<String, Map<Family, Memory>> nodes = new ConcurrentHashMap<>();

    NodeReconciler(ServedNodes served, AgentView view, CpuControls cpu, GpuControls gpu, NodeTelemetry telemetry,
                   StatusPublisher status, HardwarePublisher hardware, AgentMetrics metrics) {
        this.served = served;
        this.view = view;
        this.cpu = cpu;
        this.gpu = gpu;
        this.telemetry = telemetry;
        this.status = status;
        this.hardware = hardware;
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
        Map<Family, Memory> st = nodes.get(node);
        if (!served.serves(node)) {
            if (st != null) {
                nodes.remove(node);
                cpu.forget(node);
                gpu.forget(node);
                telemetry.forget(node);
                status.forget(node);
                hardware.forget(node);
                metrics.forget(node);
                LOG.infof("Node %s is no longer served by this agent", node);
            }
            return;
        }
        if (st == null) {
            st = new EnumMap<>(Family.class);
            for (Controls<?, ?, ?> controls : List.of(cpu, gpu)) {
                Memory memory = new Memory();
                // Host limits an earlier agent process wrote and did not restore are undone like this agent's own: when
                // the node's NodePowerProfile (or its part for the family) is gone, also if it went while no agent ran,
                // or the family's control leaves host.
                memory.desired = memory.hostTouched = controls.hostLeftByEarlierProcess();
                st.put(controls.family(), memory);
            }
            nodes.put(node, st);
        }
        Route route = Routing.resolve(view.telemetryProfiles(), node);
        // a remote GPU source is read first (it describes the hardware percents resolve against); the host's boards
        // after the caps, so that status and inventory show the limits now in force
        NodeTelemetry.Reading sampled = telemetry.read(node, route, periodic);
        OptionalDouble watts = sampled.packageWatts();
        boolean hostBoards = route.gpu().source() == SourceType.HOST;
        List<GpuSample> boards = sampled.boards();
        Optional<NodeHardwareStatus> described = sampled.hardware();
        NodeFacts facts = new NodeFacts(watts, described);
        Optional<NodePowerProfile> npp = view.profileFor(node);

        Memory cpuMemory = st.get(Family.CPU);
        Memory gpuMemory = st.get(Family.GPU);
        Optional<Done> cpuDone = enforce(node, cpuMemory, cpu, route,
                npp.map(p -> remember(p, cpuMemory, NodePowerProfileValidator.cpu(p, cpuMemory.performanceCap))), facts, periodic);
        Optional<Done> gpuDone = enforce(node, gpuMemory, gpu, route,
                npp.map(p -> remember(p, gpuMemory, NodePowerProfileValidator.gpu(p, gpuMemory.performanceCap))), facts, periodic);
        if (hostBoards) {
            boards = telemetry.hostBoards(node);
        }
        Map<Family, ControlOutcome> outcomes = new EnumMap<>(Family.class);
        Optional<String> refused = sampled.refusal();
        cpuDone.ifPresent(d -> {
            ControlOutcome out = d.out();
            out = watts.isPresent() ? out.withObserved(Observed.PACKAGE_POWER_WATTS, watts.getAsDouble()) : out;
            outcomes.put(Family.CPU, refused.isPresent() ? out.withMessage(out.message() + "; " + refused.get()) : out);
        });
        List<GpuSample> read = boards;
        gpuDone.ifPresent(d -> outcomes.put(Family.GPU, withBoards(d.out(), read)));
        cpuDone.ifPresent(d -> record(node, Family.CPU, d.kind(), outcomes.get(Family.CPU)));
        gpuDone.ifPresent(d -> record(node, Family.GPU, d.kind(), outcomes.get(Family.GPU)));
        status.publish(node, npp, outcomes);
        hardware.publish(node, route, boards, described);
    }

    /** What a family's reconcile did, to be counted and reported with the readings taken after it. */
    private record Done(Optional<Action> kind, ControlOutcome out) {
    }

    /** A valid cap of a performance profile is the one no later eco cap of the family may be above. */
    private static NodePowerProfileValidator.Ask remember(NodePowerProfile npp, Memory st, NodePowerProfileValidator.Ask ask) {
        if (ask instanceof NodePowerProfileValidator.Cap(CapRequest request) && npp.getSpec().profile() == Profile.PERFORMANCE) {
            st.performanceCap = Optional.of(request);
        }
        return ask;
    }

    /**
     * One family of one node: undo what the host control did when the route moved away from host; then enforce what
     * the profile asks, report a problem, or release what was asked before.
     *
     * @param ask what the profile asks of the family; empty: there is no profile
     * @return what was done, to report; empty when nothing was asked and nothing is to undo
     */
    private Optional<Done> enforce(String node, Memory st, Controls<?, ?, ?> controls, Route route,
                                   Optional<NodePowerProfileValidator.Ask> ask, NodeFacts facts, boolean periodic) {
        Family family = controls.family();
        if (controls.type(route) != ControlType.HOST && st.hostTouched) {
            ControlOutcome restored = restoreHost(st, controls);
            LOG.infof("Node %s: %s control moved from host to %s; %s", node, family.key(), controls.type(route), restored.message());
            record(node, family, Optional.of(Action.RESTORE), restored);
        }
        Timer.Sample sample = Timer.start();
        ControlOutcome out;
        Optional<Action> kind;
        if (ask.isEmpty() || ask.get() instanceof NodePowerProfileValidator.Nothing) {
            if (!st.desired) {
                return Optional.empty(); // nothing asked of this family, nothing to undo
            }
            st.desired = false;
            out = release(node, st, controls, route, ask.isEmpty() ? "NodePowerProfile deleted" : "spec." + family.key() + " removed");
            kind = Optional.of(Action.RESTORE);
        } else {
            st.desired = true;
            switch (ask.get()) {
                case NodePowerProfileValidator.Problem(String message) -> {
                    out = ControlOutcome.blocked(controls.backend(route), message, controls.observedNow(route));
                    kind = Optional.of(Action.APPLY);
                }
                case NodePowerProfileValidator.Cap c when controls.type(route) == ControlType.HOST && !controls.hostAvailable() -> {
                    out = ControlOutcome.blocked(controls.backend(route), "host control is not available in pool mode; "
                            + "set controls." + family.key() + ".type to http or none in a TelemetryProfile", Map.of());
                    kind = Optional.of(Action.APPLY);
                }
                case NodePowerProfileValidator.Cap(var request) -> {
                    int rewritesBefore = controls.hostRewrites();
                    out = controls.control(node, route).enforce(request, facts);
                    if (controls.type(route) == ControlType.HOST && out.result() != ControlResult.BLOCKED && out.result() != ControlResult.NONE) {
                        st.hostTouched = true;
                    }
                    boolean drift = controls.hostRewrites() > rewritesBefore;
                    kind = drift ? Optional.of(Action.REAPPLY) : periodic ? Optional.empty() : Optional.of(Action.APPLY);
                    if (drift) {
                        LOG.infof("Node %s: a %s limit had changed behind the agent's back; rewritten", node, family.key());
                    }
                }
                case NodePowerProfileValidator.Nothing() -> throw new IllegalStateException("handled above");
            }
        }
        sample.stop(metrics.applyTimer(node));
        return Optional.of(new Done(kind, out));
    }

    private void record(String node, Family family, Optional<Action> kind, ControlOutcome out) {
        switch (family) {
            case CPU -> metrics.outcome(node, kind, out);
            case GPU -> metrics.gpuOutcome(node, kind, out);
        }
    }

    /** The family's profile part is gone: restore (host, JOULIE_RESTORE_ON_EXIT) or forget what was sent (http). */
    private ControlOutcome release(String node, Memory st, Controls<?, ?, ?> controls, Route route, String why) {
        ControlOutcome out;
        Optional<? extends io.joulie.agent.control.Control> http = controls.http(node);
        if (controls.type(route) == ControlType.HTTP && http.isPresent()) {
            out = http.get().restore().restored();
        } else if (st.hostTouched) {
            out = restoreHost(st, controls);
            LOG.infof("Node %s: %s; %s", node, why, out.message());
        } else {
            out = ControlOutcome.none(controls.backend(route), "nothing to undo");
        }
        return out.withMessage(why + "; " + out.message());
    }

    /** Writes back the family's host limits found at start, if JOULIE_RESTORE_ON_EXIT allows; they are no longer the agent's. */
    private static ControlOutcome restoreHost(Memory st, Controls<?, ?, ?> controls) {
        st.hostTouched = false;
        return controls.restoreHost();
    }

    /** The GPU outcome with each board's readings, and their summed power. */
    private static ControlOutcome withBoards(ControlOutcome out, List<GpuSample> boards) {
        if (boards.isEmpty()) {
            return out;
        }
        List<Device> devices = boards.stream().map(b -> new Device(b.index(), b.name().isEmpty() ? null : b.name(), boxed(b.capWatts())))
                .toList();
        ControlOutcome with = out.withDevices(devices);
        return boards.stream().allMatch(b -> b.powerWatts().isPresent())
                ? with.withObserved(Observed.GPU_POWER_WATTS, boards.stream().mapToDouble(b -> b.powerWatts().getAsDouble()).sum())
                : with;
    }

    private static Double boxed(OptionalDouble value) {
        return value.isPresent() ? value.getAsDouble() : null;
    }
}
