package io.joulie.sim;

import io.joulie.api.v1alpha1.PowerState;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.ManagedNode;
import io.joulie.planner.NodePower;
import io.joulie.planner.Planner;
import io.joulie.planner.PlannerSettings;
import io.joulie.planner.Transition;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Standalone mode: every {@code sim.tickSeconds} the twin builds the planner's {@link ClusterContext} from the
 * simulated nodes and jobs and calls the operator's own {@link Planner} (policy, eco selection, {@code StateGuard});
 * each verdict sets the node's state, label and caps (CPU, and GPU boards where the node has them) exactly as the
 * operator's NodePowerProfile and the agent would,
 * and the evictions it asks for requeue the jobs.
 */
public final class InProcessPlanner implements ControlPlane {
    /** Sees each planner tick (the {@code watch} command prints it). */
    public interface TickListener {
        void onTick(double t, Planner.TickPlan plan, List<Transition> changed);
    }

    private final Planner planner;
    private final double tickSeconds;
    private final TickListener listener;
    private double nextTick;

    /**
     * @param planner     the operator's planner (its settings give the caps)
     * @param tickSeconds the planner interval
     * @param listener    sees every tick, or null
     */
    public InProcessPlanner(Planner planner, double tickSeconds, TickListener listener) {
        this.planner = planner;
        this.tickSeconds = tickSeconds;
        this.listener = listener;
    }

    public InProcessPlanner(PlannerSettings settings, double tickSeconds) {
        this(new Planner(settings), tickSeconds, null);
    }

    @Override
    public void start(SimCluster cluster) {
        for (SimNode n : cluster.nodes()) {
            cluster.apply(n, n.state(), n.since(), planner.settings().caps(n.state().profile(), labels(n)));
        }
    }

    /** The labels a policy sees: the node's type. */
    private static Map<String, String> labels(SimNode n) {
        return Map.of(NodeType.LABEL, n.type().name());
    }

    @Override
    public void beforeStep(double t, SimCluster cluster) {
        if (t >= nextTick - 1e-9) {
            tick(t, cluster);
            nextTick += tickSeconds;
        }
    }

    private void tick(double t, SimCluster cluster) {
        cluster.countTick();
        Instant now = Simulation.EPOCH.plus(Duration.ofMillis(Math.round(t * 1000)));
        List<ManagedNode> managed = new ArrayList<>(cluster.nodes().size());
        for (SimNode n : cluster.nodes()) {
            // the GPU boards as the operator knows them from the Node's allocatable nvidia.com/gpu
            managed.add(new ManagedNode(n.name(), labels(n), false, n.state(), n.since(), cluster.performancePods(n),
                    n.type().model().cores(), n.type().hasGpus() ? NodePower.of(null, n.type().boards()) : NodePower.UNKNOWN));
        }
        Planner.TickPlan plan = planner.plan(new ClusterContext(now, managed, cluster.activePerformanceJobs(), List.of(),
                List.of(), null, cluster.cpuDemand(), cluster.gpuDemand()));
        List<Transition> moved = new ArrayList<>();
        for (Transition tr : plan.transitions()) {
            SimNode n = cluster.node(tr.node());
            if (tr.changed()) {
                moved.add(tr);
            }
            PowerState to = tr.to();
            cluster.apply(n, to, tr.since(), plan.caps(tr, planner.settings()));
            for (String pod : tr.evict()) {
                cluster.evict(n, pod);
            }
        }
        if (listener != null) {
            listener.onTick(t, plan, moved);
        }
    }
}
