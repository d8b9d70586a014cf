package io.joulie.sim;

import io.joulie.api.v1alpha1.PowerState;
import io.joulie.operator.planner.PodClass;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One run of the twin on a simulated clock, driven by a {@link ControlPlane}. Before every step of
 * {@code sim.stepSeconds} the control plane may change labels and caps; then arrivals join the queue, the
 * scheduler places what fits, every node adds its measured power to the energy and every job progresses. The run
 * ends when the last job finished (or at {@code sim.maxSeconds}).
 */
public final class Simulation {
    /** Simulated time 0. */
    public static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");
    private static final PodClass[] CLASSES = PodClass.values();

    private final SimConfig config;
    private final List<JobSpec> jobs;
    private final Baseline baseline;
    private final ControlPlane control;
    private final List<SimNode> nodes = new ArrayList<>();
    private final Map<String, SimNode> byName = new HashMap<>();
    private final Scheduler scheduler;
    private final JobQueue queue;
    private final double[] remaining;
    /** Per node type: the (clamped) performance cap; a performance-only job under a lower cap is a violation. */
    private final double[] performanceCap;
    private final Accounting accounting;
    private final Cluster cluster = new Cluster();
    private Map<String, Integer> podIds;
    private int runningPerformance;
    private int running;
    private boolean scheduleNeeded;

    /**
     * @param baseline what the results are labelled with
     * @param control  what decides labels and caps
     */
    public Simulation(SimConfig config, List<JobSpec> jobs, Baseline baseline, ControlPlane control) {
        this.config = config;
        this.jobs = jobs;
        this.baseline = baseline;
        this.control = control;
        int maxCores = config.nodeTypes().stream().mapToInt(t -> t.model().cores()).max().orElseThrow();
        for (JobSpec j : jobs) {
            SimConfig.require(j.cores() <= maxCores, "job " + j.id() + " requests " + j.cores()
                    + " cores but no node has more than " + maxCores + " (node.cores): it could never run");
        }
        List<String> names = nodeNames(config.nodes());
        List<Integer> types = config.typeOfEachNode();
        for (int i = 0; i < config.nodes(); i++) {
            int t = types.get(i);
            SimNode n = new SimNode(i, names.get(i), config.nodeTypes().get(t), t, EPOCH);
            nodes.add(n);
            byName.put(n.name, n);
        }
        performanceCap = config.nodeTypes().stream()
                .mapToDouble(t -> t.model().clampCap(config.planner().performanceCapWatts())).toArray();
        scheduler = new Scheduler(nodes, config.nodeTypes(), !control.profilesConstrainPlacement());
        queue = new JobQueue(jobs, maxCores);
        remaining = new double[jobs.size()];
        accounting = new Accounting(jobs);
    }

    /** The run of a baseline in standalone mode: A without Joulie, the others with the operator's planner in-process. */
    public static Simulation standalone(SimConfig config, List<JobSpec> jobs, Baseline baseline) {
        return new Simulation(config, jobs, baseline, baseline.policy() == null ? new NoJoulie()
                : new InProcessPlanner(config.planner().withPolicy(baseline.policy()), config.tickSeconds()));
    }

    /** Runs until every job finished or {@code sim.maxSeconds}. */
    public RunResult run() {
        long wallStart = System.nanoTime();
        double dt = config.stepSeconds();
        double t = 0;
        double nextSample = 0;
        int nextArrival = 0;
        control.start(cluster);
        nodes.forEach(n -> n.refresh(0));
        while (accounting.completed < jobs.size() && t < config.maxSeconds()) {
            control.beforeStep(t, cluster);
            if (t >= nextSample - 1e-9) {
                accounting.sample(t, nodes, running, queue.size());
                nextSample += config.tickSeconds();
            }
            while (nextArrival < jobs.size() && jobs.get(nextArrival).arrival() <= t) {
                enqueue(jobs.get(nextArrival++), false);
            }
            if (scheduleNeeded) {
                schedule();
            }
            step(t, dt);
            t += dt;
        }
        accounting.sample(t, nodes, running, queue.size());
        return accounting.result(baseline, jobs.size(), (System.nanoTime() - wallStart) / 1_000_000);
    }

    private void enqueue(JobSpec j, boolean front) {
        remaining[j.id()] = j.work();
        queue.add(j, front);
        scheduleNeeded = true;
        control.queued(j);
    }

    /** Places pending jobs, oldest first among those that fit somewhere. */
    private void schedule() {
        scheduleNeeded = false;
        int[] maxFree = new int[CLASSES.length];
        while (queue.size() > 0) {
            for (PodClass c : CLASSES) {
                maxFree[c.ordinal()] = scheduler.maxFree(c);
            }
            JobSpec j = queue.pollOldestFitting(maxFree);
            if (j == null) {
                return;
            }
            SimNode n = nodes.get(scheduler.pick(j.podClass(), j.cores()));
            scheduler.remove(n);
            n.usedCores += j.cores();
            scheduler.add(n);
            n.running.add(j.id());
            n.dirty = true;
            running++;
            if (j.podClass() == PodClass.PERFORMANCE) {
                runningPerformance++;
                n.performanceJobs++;
            }
            control.started(j, n);
        }
    }

    /** Advances the physics by one step; frees cores (and asks for scheduling) as jobs finish. */
    private void step(double t, double dt) {
        for (SimNode n : nodes) {
            if (n.dirty) {
                n.refresh(dt);
            }
            accounting.energyJoules += n.powerWatts * dt;
            if (n.performanceJobs > 0 && n.capWatts < performanceCap[n.typeIndex]) {
                accounting.violationSeconds += n.performanceJobs * dt;
            }
            for (int k = n.running.size() - 1; k >= 0; k--) {
                int id = n.running.get(k);
                JobSpec j = jobs.get(id);
                double speed = NodeModel.jobSpeed(j.cores(), j.sensitivity(), n.f);
                remaining[id] -= speed * dt;
                if (remaining[id] <= 1e-9) {
                    detach(n, k, j);
                    accounting.finished(j, t + dt + remaining[id] / speed);
                    scheduleNeeded = true;
                }
            }
        }
    }

    private void detach(SimNode n, int k, JobSpec j) {
        control.finished(j);
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
        return nodes.get(node).labelValue();
    }

    /** The cluster as the control plane changes it; every change goes through here. */
    private final class Cluster implements SimCluster {
        @Override
        public List<SimNode> nodes() {
            return nodes;
        }

        @Override
        public SimNode node(String name) {
            SimNode n = byName.get(name);
            if (n == null) {
                throw new IllegalArgumentException("no simulated node " + name);
            }
            return n;
        }

        @Override
        public long activePerformanceJobs() {
            return runningPerformance + queue.performance();
        }

        @Override
        public List<String> performancePods(SimNode n) {
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

        @Override
        public void apply(SimNode n, PowerState state, Instant since, double capWatts) {
            setState(n, state);
            n.since = since;
            cap(n, capWatts);
            relabel(n, Scheduler.labelOf(state.labelValue()));
        }

        @Override
        public void label(SimNode n, String value) {
            int label = Scheduler.labelOf(value);
            setState(n, switch (label) {
                case Scheduler.ECO -> PowerState.ActiveEco;
                case Scheduler.DRAINING -> PowerState.DrainingPerformance;
                default -> PowerState.ActivePerformance;
            });
            relabel(n, label);
        }

        private void setState(SimNode n, PowerState state) {
            if (state != n.state) {
                n.state = state;
                accounting.transitions++;
            }
        }

        private void relabel(SimNode n, int label) {
            if (label != n.label) {
                scheduler.remove(n);
                n.label = label;
                scheduler.add(n);
                scheduleNeeded = true;
            }
        }

        @Override
        public void cap(SimNode n, double watts) {
            double cap = n.type.model().clampCap(watts);
            if (cap != n.capWatts) {
                n.capWatts = cap;
                n.dirty = true;
            }
        }

        @Override
        public void liftCap(SimNode n) {
            cap(n, n.type.model().capMaxWatts());
        }

        @Override
        public void throttle(SimNode n, double percent) {
            if (percent != n.throttlePct) {
                n.throttlePct = percent;
                n.dirty = true;
            }
        }

        @Override
        public boolean evict(SimNode n, String pod) {
            if (podIds == null) {
                podIds = new HashMap<>(jobs.size() * 2);
                jobs.forEach(j -> podIds.put(j.podName(), j.id()));
            }
            Integer id = podIds.get(pod);
            int k = id == null ? -1 : n.running.indexOf(id);
            if (k < 0) {
                return false;
            }
            JobSpec j = jobs.get(id);
            detach(n, k, j);
            enqueue(j, true);
            accounting.evictions++;
            return true;
        }

        @Override
        public void countTick() {
            accounting.ticks++;
        }
    }
}
