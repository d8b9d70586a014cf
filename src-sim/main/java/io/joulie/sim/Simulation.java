package io.joulie.sim;

import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.planner.ClusterContext;
import io.joulie.planner.ManagedNode;
import io.joulie.planner.Planner;
import io.joulie.planner.PlannerSettings;
import io.joulie.planner.PodClass;
import io.joulie.planner.Transition;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Standalone mode: one run of the twin on a simulated clock. Every {@code sim.tickSeconds} it builds the
 * planner's {@link ClusterContext} from the simulated nodes and pods and calls the operator's own
 * {@link Planner} (policy, eco selection, {@code StateGuard}); each verdict sets the node's state, its
 * {@code joulie.io/power-profile} label and its cap exactly as the operator's NodePowerProfile and the agent
 * would. Between ticks the physics advances in steps of {@code sim.stepSeconds}: arrivals, scheduling, power,
 * energy, job progress.
 */
public final class Simulation {
    /** Simulated time 0. */
    public static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");
    private static final PodClass[] CLASSES = PodClass.values();

    /** Sees each planner tick (the demo prints it). */
    public interface TickListener {
        void onTick(double t, Planner.TickPlan plan, List<Transition> changed);
    }

    private final SimConfig config;
    private final NodeModel model;
    private final List<JobSpec> jobs;
    private final Baseline baseline;
    private final Planner planner;
    private final PlannerSettings settings;
    private final TickListener listener;
    private final ExternalControl external;

    private final List<SimNode> nodes = new ArrayList<>();
    private final Scheduler scheduler;
    /** Pending jobs by class and requested cores, each FIFO by arrival. */
    private final ArrayDeque<Integer>[][] pending;
    private final double[] remaining;
    private final double ecoCap;
    private int pendingCount;
    private int pendingPerformance;
    private int runningPerformance;
    private int running;

    private double energyJoules;
    private double violationSeconds;
    private long evictions;
    private long transitions;
    private long ticks;
    private double makespan;
    private int completed;
    private final Map<PodClass, double[]> completion = new EnumMap<>(PodClass.class);
    private final Map<PodClass, Integer> completionCount = new EnumMap<>(PodClass.class);
    private final List<RunResult.Sample> series = new ArrayList<>();

    public Simulation(SimConfig config, List<JobSpec> jobs, Baseline baseline) {
        this(config, jobs, baseline, (TickListener) null);
    }

    /** Standalone mode: the simulation calls the operator's planner itself. */
    public Simulation(SimConfig config, List<JobSpec> jobs, Baseline baseline, TickListener listener) {
        this(config, jobs, baseline, listener, null);
    }

    /**
     * Cluster mode: labels and caps come from {@code external} (the real operator and agent); {@code baseline}
     * names the policy they run (B or C), whose eco cap the violations are measured against.
     */
    public Simulation(SimConfig config, List<JobSpec> jobs, Baseline baseline, ExternalControl external) {
        this(config, jobs, baseline, null, external);
    }

    @SuppressWarnings("unchecked")
    private Simulation(SimConfig config, List<JobSpec> jobs, Baseline baseline, TickListener listener,
                       ExternalControl external) {
        SimConfig.require(external == null || baseline.policy() != null, "cluster mode runs Joulie: baseline B or C");
        this.config = config;
        this.external = external;
        this.model = config.node();
        this.jobs = jobs;
        this.baseline = baseline;
        this.listener = listener;
        for (JobSpec j : jobs) {
            SimConfig.require(j.cores() <= model.cores(), "job " + j.id() + " requests " + j.cores()
                    + " cores but nodes have " + model.cores() + " (node.cores): it could never run");
        }
        this.settings = baseline.policy() == null ? null : config.planner().withPolicy(baseline.policy());
        this.planner = settings == null || external != null ? null : new Planner(settings);
        this.ecoCap = model.capWatts(config.planner().caps(Profile.ECO).cpu());
        // no Joulie, or cluster mode before the agent's first call: uncapped
        double startCap = planner == null ? model.capMaxWatts() : model.capWatts(settings.caps(Profile.PERFORMANCE).cpu());
        List<String> names = nodeNames(config.nodes());
        for (int i = 0; i < config.nodes(); i++) {
            SimNode n = new SimNode(i, names.get(i), EPOCH);
            n.capWatts = startCap;
            if (external != null) {
                n.label = Scheduler.NONE;
            }
            n.refresh(model, 0);
            nodes.add(n);
        }
        scheduler = new Scheduler(nodes, model.cores(), settings == null);
        pending = new ArrayDeque[CLASSES.length][model.cores() + 1];
        for (ArrayDeque<Integer>[] row : pending) {
            for (int c = 0; c <= model.cores(); c++) {
                row[c] = new ArrayDeque<>();
            }
        }
        remaining = new double[jobs.size()];
        for (PodClass c : CLASSES) {
            completion.put(c, new double[jobs.stream().filter(j -> j.podClass() == c).mapToInt(j -> 1).sum()]);
            completionCount.put(c, 0);
        }
    }

    /** Runs until every job finished or {@code sim.maxSeconds}. */
    public RunResult run() {
        long wallStart = System.nanoTime();
        double dt = config.stepSeconds();
        double t = 0;
        double nextTick = 0;
        int nextArrival = 0;
        boolean schedule = false;
        Access access = external == null ? null : new Access();
        while (completed < jobs.size() && t < config.maxSeconds()) {
            if (external != null) {
                external.beforeStep(t, access);
                schedule |= access.labelsChanged;
                access.labelsChanged = false;
            }
            if (t >= nextTick - 1e-9) {
                if (planner != null) {
                    schedule |= tick(t);
                }
                sample(t);
                nextTick += config.tickSeconds();
            }
            while (nextArrival < jobs.size() && jobs.get(nextArrival).arrival() <= t) {
                enqueue(jobs.get(nextArrival++), false);
                schedule = true;
            }
            if (schedule) {
                schedule(t);
            }
            schedule = step(t, dt);
            t += dt;
        }
        sample(t);
        Map<PodClass, double[]> done = new EnumMap<>(PodClass.class);
        completion.forEach((c, v) -> done.put(c, java.util.Arrays.copyOf(v, completionCount.get(c))));
        return new RunResult(baseline, energyJoules / 3.6e6, jobs.size(), completed, makespan, done,
                violationSeconds, evictions, transitions, ticks, series, (System.nanoTime() - wallStart) / 1_000_000);
    }

    private void enqueue(JobSpec j, boolean front) {
        remaining[j.id()] = j.work();
        ArrayDeque<Integer> q = pending[j.podClass().ordinal()][j.cores()];
        if (front) {
            q.addFirst(j.id());
        } else {
            q.addLast(j.id());
        }
        pendingCount++;
        if (j.podClass() == PodClass.PERFORMANCE) {
            pendingPerformance++;
        }
        if (external != null) {
            external.queued(j);
        }
    }

    /** Places pending jobs, oldest first among those that fit somewhere. */
    private void schedule(double t) {
        int[] maxFree = new int[CLASSES.length];
        while (pendingCount > 0) {
            for (PodClass c : CLASSES) {
                maxFree[c.ordinal()] = scheduler.maxFree(c);
            }
            int best = -1;
            for (PodClass c : CLASSES) {
                for (int cores = 1; cores <= maxFree[c.ordinal()]; cores++) {
                    Integer head = pending[c.ordinal()][cores].peekFirst();
                    if (head != null && (best < 0 || jobs.get(head).arrival() < jobs.get(best).arrival())) {
                        best = head;
                    }
                }
            }
            if (best < 0) {
                return;
            }
            JobSpec j = jobs.get(best);
            pending[j.podClass().ordinal()][j.cores()].pollFirst();
            pendingCount--;
            SimNode n = nodes.get(scheduler.pick(j.podClass(), j.cores()));
            scheduler.remove(n);
            n.usedCores += j.cores();
            scheduler.add(n);
            n.running.add(best);
            n.dirty = true;
            running++;
            if (external != null) {
                external.started(j, n.name);
            }
            if (j.podClass() == PodClass.PERFORMANCE) {
                pendingPerformance--;
                runningPerformance++;
                n.performanceJobs++;
            }
        }
    }

    /** Advances the physics by one step; returns whether cores were freed (scheduling needed). */
    private boolean step(double t, double dt) {
        boolean freed = false;
        for (SimNode n : nodes) {
            if (n.dirty) {
                n.refresh(model, dt);
            }
            energyJoules += n.powerWatts * dt;
            if (n.performanceJobs > 0 && n.capWatts == ecoCap) {
                violationSeconds += n.performanceJobs * dt;
            }
            for (int k = n.running.size() - 1; k >= 0; k--) {
                int id = n.running.get(k);
                JobSpec j = jobs.get(id);
                double speed = NodeModel.jobSpeed(j.cores(), j.sensitivity(), n.f);
                remaining[id] -= speed * dt;
                if (remaining[id] <= 1e-9) {
                    finish(n, k, j, t + dt + remaining[id] / speed);
                    freed = true;
                }
            }
        }
        return freed;
    }

    private void finish(SimNode n, int k, JobSpec j, double at) {
        detach(n, k, j);
        int c = j.podClass().ordinal();
        int count = completionCount.get(CLASSES[c]);
        completion.get(CLASSES[c])[count] = at - j.arrival();
        completionCount.put(CLASSES[c], count + 1);
        completed++;
        makespan = Math.max(makespan, at);
    }

    private void detach(SimNode n, int k, JobSpec j) {
        if (external != null) {
            external.finished(j);
        }
        n.running.remove(k);
        scheduler.remove(n);
        n.usedCores -= j.cores();
        scheduler.add(n);
        n.dirty = true;
        running--;
        if (j.podClass() == PodClass.PERFORMANCE) {
            n.performanceJobs--;
            runningPerformance--;
        }
    }

    /** One planner tick; returns whether labels changed or jobs were evicted (scheduling needed). */
    private boolean tick(double t) {
        ticks++;
        Instant now = EPOCH.plus(Duration.ofMillis(Math.round(t * 1000)));
        List<ManagedNode> managed = new ArrayList<>(nodes.size());
        for (SimNode n : nodes) {
            managed.add(new ManagedNode(n.name, Map.of(), false, n.state, n.since, performancePods(n)));
        }
        Planner.TickPlan plan = planner.plan(new ClusterContext(now, managed, runningPerformance + pendingPerformance));
        boolean changed = false;
        List<Transition> moved = new ArrayList<>();
        for (Transition tr : plan.transitions()) {
            SimNode n = nodes.get(indexOf(tr.node()));
            if (tr.changed()) {
                transitions++;
                moved.add(tr);
            }
            changed |= apply(n, tr.to(), tr.since());
            for (String pod : tr.evict()) {
                changed |= evict(n, pod);
            }
        }
        if (listener != null) {
            listener.onTick(t, plan, moved);
        }
        return changed;
    }

    /** What the operator writes and the agent enforces: state, label, cap. Returns whether the label changed. */
    private boolean apply(SimNode n, PowerState to, Instant since) {
        n.state = to;
        n.since = since;
        double cap = model.capWatts(settings.caps(to.profile()).cpu());
        if (cap != n.capWatts) {
            n.capWatts = cap;
            n.dirty = true;
        }
        return relabel(n, Scheduler.labelOf(to.labelValue()));
    }

    private boolean relabel(SimNode n, int label) {
        if (label == n.label) {
            return false;
        }
        scheduler.remove(n);
        n.label = label;
        scheduler.add(n);
        return true;
    }

    /** Cluster mode: what the external control plane changes; the state follows the label. */
    private final class Access implements ExternalControl.Nodes {
        boolean labelsChanged;

        @Override
        public void label(String node, String value) {
            SimNode n = nodes.get(indexOf(node));
            int label = Scheduler.labelOf(value);
            PowerState state = switch (label) {
                case Scheduler.ECO -> PowerState.ActiveEco;
                case Scheduler.DRAINING -> PowerState.DrainingPerformance;
                default -> PowerState.ActivePerformance;
            };
            if (state != n.state) {
                n.state = state;
                transitions++;
            }
            labelsChanged |= relabel(n, label);
        }

        @Override
        public void cap(String node, double watts) {
            SimNode n = nodes.get(indexOf(node));
            double cap = model.clampCap(watts);
            if (cap != n.capWatts) {
                n.capWatts = cap;
                n.dirty = true;
            }
        }

        @Override
        public void throttle(String node, double percent) {
            SimNode n = nodes.get(indexOf(node));
            if (percent != n.throttlePct) {
                n.throttlePct = percent;
                n.dirty = true;
            }
        }

        @Override
        public double powerWatts(int index) {
            return nodes.get(index).powerWatts;
        }
    }

    private boolean evict(SimNode n, String pod) {
        int id = Integer.parseInt(pod.substring(pod.lastIndexOf('-') + 1));
        int k = n.running.indexOf(id);
        if (k < 0) {
            return false;
        }
        JobSpec j = jobs.get(id);
        detach(n, k, j);
        enqueue(j, true);
        evictions++;
        return true;
    }

    private int indexOf(String nodeName) {
        return Integer.parseInt(nodeName.substring(nodeName.indexOf('-') + 1)) - 1;
    }

    private List<String> performancePods(SimNode n) {
        if (n.performanceJobs == 0) {
            return List.of();
        }
        List<String> pods = new ArrayList<>(n.performanceJobs);
        for (int id : n.running) {
            JobSpec j = jobs.get(id);
            if (j.podClass() == PodClass.PERFORMANCE) {
                pods.add(j.podName());
            }
        }
        pods.sort(null);
        return pods;
    }

    private void sample(double t) {
        int perf = 0;
        int draining = 0;
        int eco = 0;
        double power = 0;
        for (SimNode n : nodes) {
            if (n.dirty) {
                n.refresh(model, 0);
            }
            power += n.powerWatts;
            switch (n.state) {
                case ActivePerformance -> perf++;
                case DrainingPerformance -> draining++;
                case ActiveEco -> eco++;
            }
        }
        series.add(new RunResult.Sample(t, power, energyJoules / 3.6e6, perf, draining, eco, running, pendingCount));
    }

    /** The names of {@code count} simulated nodes, by index: {@code node-0001}, ... (name order = index order). */
    public static List<String> nodeNames(int count) {
        String format = "node-%0" + Math.max(4, String.valueOf(count).length()) + "d";
        List<String> names = new ArrayList<>(count);
        for (int i = 1; i <= count; i++) {
            names.add(String.format(format, i));
        }
        return names;
    }

    /** For tests: the node's current label value. */
    String labelOf(int node) {
        return Scheduler.LABEL_VALUES[nodes.get(node).label];
    }
}
