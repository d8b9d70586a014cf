package io.joulie.sim;

import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.planner.ParkingPolicy;
import io.joulie.planner.PodClass;
import io.joulie.planner.ProfileCaps;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * One run of the twin on a simulated clock, driven by a {@link ControlPlane}. Before every step of
 * {@code sim.stepSeconds} the control plane may change labels and caps; then arrivals join the queue, the
 * scheduler places what fits, every node adds its measured power to the energy and every job progresses. The run
 * ends when the last job finished (or at {@code sim.maxSeconds}).
 *
 * <p>A node whose load, cap and throttle do not change draws constant power and runs its jobs at constant speed,
 * so its steps are accounted for lazily: in one go when something changes on it, when it is sampled, or at the step
 * its next job finishes (computed ahead). The result is that of stepping every node every step, up to rounding.
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
    /**
     * Per node type: the (clamped) performance caps of the CPU part and of each GPU board; a performance-only job
     * under a lower cap is a violation.
     */
    private final double[] performanceCap;
    private final double[] performanceGpuCap;
    private final Accounting accounting;
    private final Cluster cluster = new Cluster();
    private Map<String, Integer> podIds;
    private int runningPerformance;
    private int running;
    /** Cores requested by waiting or running jobs: performance-only, eco-only, unconstrained that declare eco. */
    private long performanceCores;
    private long ecoOnlyCores;
    private long declaredEcoCores;
    private long performanceGpus;
    private long ecoOnlyGpus;
    private long declaredEcoGpus;
    private boolean scheduleNeeded;
    /** Per class and boards, the most free cores a node offers (see {@link JobQueue#pollOldestFitting}). */
    private final int[][] maxFree;
    private final double dt;
    /** The step about to run. */
    private long step;
    /** Nodes changed at this step. */
    private final List<SimNode> touched = new ArrayList<>();
    /** Wake-ups: {step, node index, node version}, earliest first. */
    private final PriorityQueue<long[]> wakeUps = new PriorityQueue<>((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0])
            : Long.compare(a[1], b[1]));
    /** Pod names by job id, made when first asked for. */
    private final String[] podNames;
    /** Parking ({@code parking.*}): its settings, the nodes booting, the requested cores at recent ticks {t, cores}. */
    private final ParkingConfig parking;
    private final ParkingPolicy.Settings parkingSettings;
    private final List<SimNode> booting = new ArrayList<>();
    private final java.util.ArrayDeque<double[]> requestedHistory = new java.util.ArrayDeque<>();
    /** Cores requested by waiting or running CPU jobs, any class. */
    private long requestedCores;
    private final int largestCpuJob;
    private double nextParkingTick;
    private int parks;
    private int wakes;
    /** Σ over parking ticks of the nodes parked, to report the mean. */
    private long parkedNodeTicks;
    private long parkingTicks;

    /**
     * @param baseline what the results are labelled with
     * @param control  what decides labels and caps
     */
    public Simulation(SimConfig config, List<JobSpec> jobs, Baseline baseline, ControlPlane control) {
        this.config = config;
        this.jobs = jobs;
        this.baseline = baseline;
        this.control = control;
        this.dt = config.stepSeconds();
        int maxCores = config.nodeTypes().stream().mapToInt(t -> t.model().cores()).max().orElseThrow();
        int maxBoards = config.nodeTypes().stream().mapToInt(NodeType::boards).max().orElseThrow();
        List<NodeType> present = config.typeOfEachNode().stream().distinct().map(config.nodeTypes()::get).toList();
        for (JobSpec j : jobs) {
            SimConfig.require(present.stream().anyMatch(t -> fits(j, t)), "job " + j.id() + " requests " + j.cores() + " cores"
                    + (j.usesGpus() ? " and " + j.gpus() + " GPU boards but no GPU node of cluster.types has them"
                    : " but no node without GPUs has them (node.cores, cluster.types)") + ": it could never run");
        }
        List<String> names = nodeNames(config.nodes());
        List<Integer> types = config.typeOfEachNode();
        for (int i = 0; i < config.nodes(); i++) {
            int t = types.get(i);
            SimNode n = new SimNode(i, names.get(i), config.nodeTypes().get(t), t, EPOCH);
            n.interference = config.interference();
            n.offWatts = config.parking().offWatts();
            nodes.add(n);
            byName.put(n.name, n);
        }
        ProfileCaps perf = config.planner().caps(Profile.PERFORMANCE);
        performanceCap = config.nodeTypes().stream().mapToDouble(t -> t.model().capWatts(perf.cpu())).toArray();
        performanceGpuCap = config.nodeTypes().stream().mapToDouble(t -> t.hasGpus() ? t.gpu().capWatts(perf.gpu()) : 0).toArray();
        scheduler = new Scheduler(nodes, config.nodeTypes(), !control.profilesConstrainPlacement(), config.score());
        queue = new JobQueue(jobs, maxCores, maxBoards);
        maxFree = new int[CLASSES.length][maxBoards + 1];
        remaining = new double[jobs.size()];
        podNames = new String[jobs.size()];
        accounting = new Accounting(jobs);
        parking = config.parking();
        parkingSettings = new ParkingPolicy.Settings(Duration.ofMillis(Math.round(parking.idleSeconds() * 1000)),
                parking.warmFraction(), parking.minNodes());
        largestCpuJob = jobs.stream().filter(j -> !j.usesGpus()).mapToInt(JobSpec::cores).max().orElse(0);
    }

    /** The run of a baseline in standalone mode: A without Joulie, the others with the operator's planner in-process. */
    public static Simulation standalone(SimConfig config, List<JobSpec> jobs, Baseline baseline) {
        return new Simulation(config, jobs, baseline, baseline.policy() == null ? new NoJoulie()
                : new InProcessPlanner(config.planner().withPolicy(baseline.policy()), config.tickSeconds()));
    }

    /** Whether a job can run on a node of this type: a GPU job on a GPU node with its boards, a CPU job on one without. */
    static boolean fits(JobSpec j, NodeType t) {
        return j.usesGpus() == t.hasGpus() && j.cores() <= t.model().cores() && j.gpus() <= t.boards();
    }

    /** Runs until every job finished or {@code sim.maxSeconds}. */
    public RunResult run() {
        long wallStart = System.nanoTime();
        double t = 0;
        double nextSample = 0;
        int nextArrival = 0;
        nodes.forEach(this::touch);
        control.start(cluster);
        nodes.forEach(n -> n.refresh(0));
        while (accounting.completed < jobs.size() && t < config.maxSeconds()) {
            control.beforeStep(t, cluster);
            if (t >= nextSample - 1e-9) {
                sample(t);
                nextSample += config.tickSeconds();
            }
            while (nextArrival < jobs.size() && jobs.get(nextArrival).arrival() <= t) {
                enqueue(jobs.get(nextArrival++), false);
            }
            if (parking.enabled()) {
                finishBoots(t);
            }
            if (scheduleNeeded) {
                schedule();
            }
            if (parking.enabled() && t >= nextParkingTick - 1e-9) {
                parkingTick(t);
                nextParkingTick += config.tickSeconds();
            }
            runStep(t);
            t += dt;
            step++;
        }
        sample(t);
        RunResult.Parking parked = parking.enabled()
                ? new RunResult.Parking(parks, wakes, parkingTicks == 0 ? 0.0 : (double) parkedNodeTicks / parkingTicks)
                : RunResult.Parking.NONE;
        return accounting.result(baseline, jobs.size(), (System.nanoTime() - wallStart) / 1_000_000, parked);
    }

    private void sample(double t) {
        nodes.forEach(n -> advance(n, step));
        accounting.sample(t, nodes, running, queue.size());
    }

    private void enqueue(JobSpec j, boolean front) {
        if (!front) {
            demand(j, +1);
        }
        remaining[j.id()] = j.work();
        queue.add(j, front);
        scheduleNeeded = true;
        control.queued(j);
    }

    /** Places pending jobs, oldest first among those that fit somewhere. */
    private void schedule() {
        scheduleNeeded = false;
        while (queue.size() > 0) {
            for (PodClass c : CLASSES) {
                maxFree[c.ordinal()][0] = scheduler.maxFree(c);
                scheduler.maxFreeWithGpus(c, maxFree[c.ordinal()]);
            }
            JobSpec j = queue.pollOldestFitting(maxFree);
            if (j == null) {
                return;
            }
            SimNode n = nodes.get(j.usesGpus() ? scheduler.pickGpu(j.podClass(), j.cores(), j.gpus())
                    : scheduler.pick(j.podClass(), j.cores(), j.prefersEco()));
            touch(n);
            scheduler.remove(n);
            n.attach(j);
            scheduler.add(n);
            n.running.add(j.id());
            n.emptySince = Double.NaN;
            running++;
            if (j.podClass() == PodClass.PERFORMANCE) {
                runningPerformance++;
                n.performanceJobs++;
            }
            control.started(j, n);
        }
    }

    /** Before anything changes on a node at this step: its past steps accounted for, its step this one. */
    private void touch(SimNode n) {
        advance(n, step);
        n.dirty = true;
        if (!n.touched) {
            n.touched = true;
            touched.add(n);
        }
    }

    /**
     * Accounts for the node's steps up to (not including) {@code to}, during which nothing changed on it and no job
     * of it finished: constant power, constant speeds.
     */
    private void advance(SimNode n, long to) {
        long k = to - n.synced;
        if (k <= 0) {
            return;
        }
        double span = k * dt;
        accounting.energyJoules += n.powerWatts * span;
        accounting.gpuEnergyJoules += n.gpuPowerWatts * span;
        if (violating(n)) {
            accounting.violationSeconds += n.performanceJobs * span;
        }
        for (int id : n.running) {
            remaining[id] -= n.speed(jobs.get(id)) * span;
        }
        n.synced = to;
    }

    private boolean violating(SimNode n) {
        return n.performanceJobs > 0 && (n.capWatts < performanceCap[n.typeIndex]
                || n.type.hasGpus() && n.gpuCapWatts < performanceGpuCap[n.typeIndex]);
    }

    /** Runs this step on every node that changed, is ramping or has a job finishing in it. */
    private void runStep(double t) {
        List<SimNode> due = new ArrayList<>(touched);
        touched.clear();
        while (!wakeUps.isEmpty() && wakeUps.peek()[0] <= step) {
            long[] w = wakeUps.poll();
            SimNode n = nodes.get((int) w[1]);
            if (n.version == w[2] && !n.touched) {
                due.add(n);
                n.touched = true;
            }
        }
        due.sort(Comparator.comparingInt(SimNode::index));
        for (SimNode n : due) {
            n.touched = false;
            advance(n, step);
            if (n.dirty) {
                n.refresh(dt);
            }
            accounting.energyJoules += n.powerWatts * dt;
            accounting.gpuEnergyJoules += n.gpuPowerWatts * dt;
            if (violating(n)) {
                accounting.violationSeconds += n.performanceJobs * dt;
            }
            long next = Long.MAX_VALUE;
            for (int k = n.running.size() - 1; k >= 0; k--) {
                int id = n.running.get(k);
                JobSpec j = jobs.get(id);
                double speed = n.speed(j);
                remaining[id] -= speed * dt;
                if (remaining[id] <= 1e-9) {
                    detach(n, k, j);
                    demand(j, -1);
                    accounting.finished(j, t + dt + remaining[id] / speed);
                    scheduleNeeded = true;
                } else if (speed > 0) {
                    next = Math.min(next, step + Math.max(1, (long) Math.ceil((remaining[id] - 1e-9) / (speed * dt))));
                }
            }
            n.synced = step + 1;
            if (n.dirty) {
                next = step + 1;
            }
            n.version++;
            if (next != Long.MAX_VALUE) {
                wakeUps.add(new long[] {next, n.index, n.version});
            }
        }
    }

    /** Booting nodes whose boot is over come on, empty since now, and take pods from this step. */
    private void finishBoots(double t) {
        for (int k = booting.size() - 1; k >= 0; k--) {
            SimNode n = booting.get(k);
            if (n.bootDoneAt <= t + 1e-9) {
                booting.remove(k);
                touch(n);
                n.power = ParkingPolicy.Power.ON;
                n.emptySince = t;
                scheduler.add(n);
                scheduleNeeded = true;
            }
        }
    }

    /** A planner tick of parking: {@link ParkingPolicy} on the nodes without GPUs (GPU nodes are never parked). */
    private void parkingTick(double t) {
        requestedHistory.addLast(new double[] {t, requestedCores});
        while (requestedHistory.peekFirst()[0] < t - parking.windowSeconds() - 1e-9) {
            requestedHistory.pollFirst();
        }
        long peak = 0;
        for (double[] h : requestedHistory) {
            peak = Math.max(peak, (long) h[1]);
        }
        List<ParkingPolicy.NodeFacts> facts = new ArrayList<>(nodes.size());
        int parked = 0;
        for (SimNode n : nodes) {
            if (n.type.hasGpus()) {
                continue;
            }
            parked += n.power == ParkingPolicy.Power.PARKED ? 1 : 0;
            facts.add(new ParkingPolicy.NodeFacts(n.name, n.type.name(), n.cores(), n.freeCores(),
                    Double.isNaN(n.emptySince) ? null : at(n.emptySince), n.power));
        }
        parkedNodeTicks += parked;
        parkingTicks++;
        ParkingPolicy.Decision d = ParkingPolicy.decide(parkingSettings, at(t), facts,
                new ParkingPolicy.Demand(peak, largestCpuJob, queue.waitingCpuCores()));
        for (String name : d.park()) {
            SimNode n = byName.get(name);
            SimConfig.require(n.running.isEmpty(), "parking chose " + name + ", which holds jobs");
            touch(n);
            scheduler.remove(n);
            n.power = ParkingPolicy.Power.PARKED;
            parks++;
        }
        for (String name : d.wake()) {
            SimNode n = byName.get(name);
            touch(n);
            n.power = ParkingPolicy.Power.BOOTING;
            n.bootDoneAt = t + parking.bootSeconds();
            accounting.energyJoules += parking.wakeJoules();
            booting.add(n);
            wakes++;
        }
        if (parking.bootSeconds() == 0) {
            finishBoots(t);
        }
    }

    private static Instant at(double t) {
        return EPOCH.plus(Duration.ofMillis(Math.round(t * 1000)));
    }

    /** A job enters (+1, on arrival) or leaves (−1, when done) the demand the policies see. */
    private void demand(JobSpec j, int sign) {
        if (!j.usesGpus()) {
            requestedCores += sign * j.cores();
        }
        switch (j.podClass()) {
            case PERFORMANCE -> {
                performanceCores += sign * j.cores();
                performanceGpus += sign * j.gpus();
            }
            case ECO -> {
                ecoOnlyCores += sign * j.cores();
                ecoOnlyGpus += sign * j.gpus();
            }
            case UNCONSTRAINED -> {
                declaredEcoCores += j.declaresEco() ? sign * j.cores() : 0;
                declaredEcoGpus += j.declaresEco() ? sign * j.gpus() : 0;
            }
        }
    }

    /** Takes a job off its node (finished, or evicted after a {@link #touch}). */
    private void detach(SimNode n, int k, JobSpec j) {
        control.finished(j);
        n.running.remove(k);
        if (n.running.isEmpty()) {
            n.emptySince = (step + 1) * dt;
        }
        scheduler.remove(n);
        n.detach(j);
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
        public io.joulie.planner.ClusterContext.CpuDemand cpuDemand() {
            return new io.joulie.planner.ClusterContext.CpuDemand(performanceCores, ecoOnlyCores, declaredEcoCores);
        }

        @Override
        public io.joulie.planner.ClusterContext.GpuDemand gpuDemand() {
            return new io.joulie.planner.ClusterContext.GpuDemand(performanceGpus, ecoOnlyGpus, declaredEcoGpus);
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
                    if (podNames[id] == null) {
                        podNames[id] = j.podName();
                    }
                    pods.add(podNames[id]);
                }
            }
            pods.sort(null);
            return pods;
        }

        @Override
        public void apply(SimNode n, PowerState state, Instant since, ProfileCaps caps) {
            setState(n, state);
            n.since = since;
            cap(n, n.type.model().capWatts(caps.cpu()));
            if (n.type.hasGpus()) {
                gpuCap(n, n.type.gpu().capWatts(caps.gpu()));
            }
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
                touch(n);
                n.capWatts = cap;
            }
        }

        @Override
        public void gpuCap(SimNode n, double wattsPerBoard) {
            SimConfig.require(n.type.hasGpus(), n.name + " has no GPU boards to cap");
            double cap = n.type.gpu().board().clampCap(wattsPerBoard);
            if (cap != n.gpuCapWatts) {
                touch(n);
                n.gpuCapWatts = cap;
            }
        }

        @Override
        public void liftCap(SimNode n) {
            cap(n, n.type.model().capMaxWatts());
            if (n.type.hasGpus()) {
                gpuCap(n, n.type.gpu().defaultLimitWatts());
            }
        }

        @Override
        public void throttle(SimNode n, double percent) {
            if (percent != n.throttlePct) {
                touch(n);
                n.throttlePct = percent;
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
            touch(n);
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
