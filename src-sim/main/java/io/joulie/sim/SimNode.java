package io.joulie.sim;

import io.joulie.api.v1alpha1.PowerState;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** A simulated node's mutable state within one run; control planes read it and change it through {@link SimCluster}. */
public final class SimNode {
    final int index;
    final String name;
    final NodeType type;
    /** The type's position in the configuration's list of types. */
    final int typeIndex;
    /** {@link Scheduler#PERFORMANCE}, {@link Scheduler#ECO}, {@link Scheduler#DRAINING} or {@link Scheduler#NONE}. */
    int label = Scheduler.PERFORMANCE;
    PowerState state = PowerState.ActivePerformance;
    Instant since;
    /** The applied cap, already clamped by the node model. */
    double capWatts;
    /** The applied GPU limit of each board, already clamped by the GPU model; unused on a node without GPUs. */
    double gpuCapWatts;
    double throttlePct;
    double throttleF = 1.0;
    int usedCores;
    /** GPU boards held by the jobs running here. */
    int usedGpus;
    int performanceJobs;
    /** Σ cores · (1 − activity) of the jobs running here: the node's load is {@code (usedCores − idleCores) / cores}. */
    double idleCores;
    /** Σ cores · activity · (1 − intensity) of the CPU jobs running here: the mean intensity is {@code 1 − stallCores / busy cores}. */
    double stallCores;
    /** The GPU jobs running here (each board's clock is its own job's). */
    final List<JobSpec> gpuJobs = new ArrayList<>();
    /**
     * γ: a CPU job runs {@code 1 − γ · (other jobs' cores / cores)} as fast as alone (co-located jobs' contention for
     * caches and memory bandwidth); 0 assumes none. Set by the engine from {@code cluster.interference}.
     */
    double interference;
    /** Ids of the jobs running here. */
    final List<Integer> running = new ArrayList<>();
    /** Derived from the above; recomputed when {@link #dirty}. */
    double f = 1.0;
    /** The share of time the cores run: below 1 only under a cap the node cannot meet at its lowest frequency. */
    double duty = 1.0;
    /** A compute-bound busy board's clock scale and duty cycle under the GPU limit (each job's own: {@link #speed}). */
    double gpuF = 1.0;
    double gpuDuty = 1.0;
    /** Measured power of the whole node (CPU part and GPU boards) and of the GPU boards alone. */
    double powerWatts;
    double gpuPowerWatts;
    boolean dirty = true;
    /** The first physics step not yet accounted for (energy, violations, job progress). */
    long synced;
    /** Changed at the current step: the engine runs its step explicitly. */
    boolean touched;
    /** Counts the node's wake-ups, so that a superseded one is recognised. */
    int version;
    /** Parking: on, parked (cordoned and off) or booting; always on without parking. */
    io.joulie.planner.ParkingPolicy.Power power = io.joulie.planner.ParkingPolicy.Power.ON;
    /** Simulated seconds since which it holds no job, NaN while it holds one. */
    double emptySince;
    /** While booting: when it is on. */
    double bootDoneAt;
    /** What it draws while parked ({@code parking.offWatts}). */
    double offWatts;

    SimNode(int index, String name, NodeType type, int typeIndex, Instant since) {
        this.index = index;
        this.name = name;
        this.type = type;
        this.typeIndex = typeIndex;
        this.since = since;
    }

    public int index() {
        return index;
    }

    public String name() {
        return name;
    }

    public NodeType type() {
        return type;
    }

    public PowerState state() {
        return state;
    }

    public Instant since() {
        return since;
    }

    /** The cap the node runs under (clamped by its model). */
    public double capWatts() {
        return capWatts;
    }

    /** The limit each of its GPU boards runs under (clamped by its GPU model); 0 without GPUs. */
    public double gpuCapWatts() {
        return type.hasGpus() ? gpuCapWatts : 0;
    }

    /** Latest measured power (CPU part and GPU boards). */
    public double powerWatts() {
        return powerWatts;
    }

    /** Latest measured power of its GPU boards (0 without GPUs). */
    public double gpuPowerWatts() {
        return gpuPowerWatts;
    }

    /** The value of its {@code joulie.io/power-profile} label, or null. */
    public String labelValue() {
        return Scheduler.LABEL_VALUES[label];
    }

    /**
     * Progress rate of a job on this node now: core-seconds per second, or reference board-seconds for a GPU job (its
     * boards' clock under the limit for its own intensity, times the board type's throughput).
     */
    double speed(JobSpec j) {
        if (j.usesGpus()) {
            return type.gpu().jobSpeed(j.gpus(), j.sensitivity(), gpuCapWatts);
        }
        double contention = interference == 0 ? 1 : 1 - interference * (busyCores() - j.cores() * j.activity()) / cores();
        return NodeModel.jobSpeed(j.cores(), j.sensitivity(), f) * duty * contention;
    }

    /** A job starts here: its cores, boards and power intensity join the node's. */
    void attach(JobSpec j) {
        usedCores += j.cores();
        usedGpus += j.gpus();
        idleCores += j.cores() * (1 - j.activity());
        if (j.usesGpus()) {
            gpuJobs.add(j);
        } else {
            stallCores += j.cores() * j.activity() * (1 - type.model().intensity(j.sensitivity()));
        }
    }

    /** A job leaves. */
    void detach(JobSpec j) {
        usedCores -= j.cores();
        usedGpus -= j.gpus();
        idleCores = usedCores == 0 ? 0 : idleCores - j.cores() * (1 - j.activity());
        if (j.usesGpus()) {
            gpuJobs.remove(j);
        } else {
            stallCores = usedCores == 0 ? 0 : stallCores - j.cores() * j.activity() * (1 - type.model().intensity(j.sensitivity()));
        }
    }

    /** The busy cores: requested cores times their jobs' activity (the load on the SPECpower curve). */
    double busyCores() {
        return Math.max(0, usedCores - idleCores);
    }

    /** The running CPU work's mean power intensity, weighted by busy cores (1 when idle or compute-bound). */
    double intensity() {
        double busy = busyCores();
        return busy <= 1e-9 ? 1 : Math.clamp(1 - stallCores / busy, 0.0, 1.0);
    }

    int cores() {
        return type.model().cores();
    }

    int freeCores() {
        return cores() - usedCores;
    }

    int freeGpus() {
        return type.boards() - usedGpus;
    }

    /**
     * Recomputes frequency and power after a change of load, cap or throttle, of the CPU part and of the GPU boards;
     * advances the throttle ramp.
     */
    void refresh(double dt) {
        if (power == io.joulie.planner.ParkingPolicy.Power.PARKED) {
            f = 1;
            duty = 1;
            powerWatts = offWatts;
            gpuPowerWatts = 0;
            dirty = false;
            return;
        }
        NodeModel model = type.model();
        double u = busyCores() / model.cores();
        boolean ramping = Math.abs(throttleF - model.throttleTarget(throttlePct)) > 1e-9;
        if (ramping) {
            throttleF = model.throttleStep(throttleF, throttlePct, dt);
        }
        double w = intensity();
        f = Math.min(model.capFrequency(u, capWatts, w), throttleF);
        duty = model.duty(u, f, capWatts, w);
        powerWatts = model.measuredPower(u, f, capWatts, w);
        if (type.hasGpus()) {
            GpuModel gpu = type.gpu();
            gpuF = gpu.frequency(gpuCapWatts);
            gpuDuty = gpu.duty(gpuF, gpuCapWatts);
            // boards of known jobs at their own intensity; boards held otherwise (set directly) as compute-bound
            int tracked = 0;
            gpuPowerWatts = 0;
            for (JobSpec j : gpuJobs) {
                gpuPowerWatts += j.gpus() * gpu.busyBoardPower(gpuCapWatts, gpu.board().intensity(j.sensitivity()));
                tracked += j.gpus();
            }
            gpuPowerWatts += (usedGpus - tracked) * gpu.busyBoardPower(gpuCapWatts, 1) + (type.boards() - usedGpus) * gpu.idleBoardPower();
            powerWatts += gpuPowerWatts;
        }
        dirty = ramping;
    }
}
