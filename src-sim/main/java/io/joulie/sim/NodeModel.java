package io.joulie.sim;

import static io.joulie.sim.SimConfig.require;

/**
 * The node power model: {@code P(u, f) = idle + (L(u) − idle) · ((1 − φ) + φ · f^β)}, where {@code L} is the node's
 * {@link LoadCurve} at full frequency, {@code f ∈ [fmin/fmax, 1]} the frequency scale and φ the share of the power
 * above idle that frequency scales (the cores; memory, fans and the rest follow the load only). The seed-era model
 * has φ = 1. A power cap lowers f to
 * the highest value that meets it (RAPL acts within milliseconds, so at once here); a DVFS throttle moves f towards
 * {@code 1 − throttle/100} with a first-order time constant. A cap the node cannot meet even at its lowest frequency
 * is met as RAPL meets it, by halting the cores part of the time (clock modulation): the node then draws the cap
 * (never less than idle) and its jobs progress only for that {@link #duty duty cycle}. Measured power never exceeds
 * {@code cap + tolerance} and never reads below the floor.
 *
 * @param cores              CPU cores; u = requested cores of running jobs / cores
 * @param curve              power at full frequency by utilisation
 * @param beta               frequency exponent β of the dynamic power
 * @param frequencyShare     φ: the share of the power above idle that scales with frequency
 * @param fminMHz            lowest frequency
 * @param fmaxMHz            highest frequency (f = 1)
 * @param floorWatts         a meter never reads below this
 * @param capMinWatts        a cap is clamped to at least this
 * @param capMaxWatts        a cap is clamped to at most this (also "no cap")
 * @param capToleranceWatts  a meter never reads above cap + this
 * @param throttleTauSeconds time constant of the DVFS throttle ramp
 */
public record NodeModel(int cores, LoadCurve curve, double beta, double frequencyShare, double fminMHz, double fmaxMHz, double floorWatts,
                        double capMinWatts, double capMaxWatts, double capToleranceWatts, double throttleTauSeconds) {

    public NodeModel {
        require(cores >= 1, "node.cores must be at least 1, got " + cores);
        require(beta > 0, "node.beta must be > 0");
        require(frequencyShare > 0 && frequencyShare <= 1, "node.frequencyShare must be in (0, 1], got " + frequencyShare);
        require(fminMHz > 0 && fmaxMHz >= fminMHz, "need 0 < node.fminMHz ≤ node.fmaxMHz");
        require(capMinWatts > 0 && capMaxWatts >= capMinWatts, "need 0 < node.capMinWatts ≤ node.capMaxWatts");
        require(floorWatts >= 0 && capToleranceWatts >= 0, "node.floorWatts and node.capToleranceWatts must be ≥ 0");
        require(throttleTauSeconds > 0, "node.throttleTauSeconds must be > 0");
    }

    public static NodeModel defaults() {
        return SimConfig.defaults().nodeTypes().getFirst().model();
    }

    public double idleWatts() {
        return curve.idleWatts();
    }

    /** The lowest frequency scale. */
    public double fMin() {
        return fminMHz / fmaxMHz;
    }

    /** Model power at utilisation {@code u ∈ [0, 1]} and frequency scale {@code f}. */
    public double power(double u, double f) {
        double ff = Math.clamp(f, fMin(), 1.0);
        return curve.idleWatts() + curve.dynamicWatts(Math.clamp(u, 0.0, 1.0)) * ((1 - frequencyShare) + frequencyShare * Math.pow(ff, beta));
    }

    /** A profile's CPU cap on this node in watts, clamped: its watts, or its percent of the node's highest cap (capMax). */
    public double capWatts(io.joulie.api.v1alpha1.NodePowerProfileSpec.CpuPower cap) {
        return clampCap(cap.packagePowerCapWatts() != null ? cap.packagePowerCapWatts() : capMaxWatts * cap.packagePowerCapPercent() / 100);
    }

    /** A requested cap, clamped to [capMin, capMax]. */
    public double clampCap(double capWatts) {
        return Math.clamp(capWatts, capMinWatts, capMaxWatts);
    }

    /**
     * The highest frequency scale whose power meets the (clamped) cap at utilisation {@code u}: 1 when the
     * cap is above the power at full frequency, {@code fmin/fmax} when even that exceeds it.
     */
    public double capFrequency(double u, double capWatts) {
        double cap = clampCap(capWatts);
        double idle = curve.idleWatts();
        double dynamic = curve.dynamicWatts(Math.clamp(u, 0.0, 1.0));
        if (dynamic <= 0 || idle + dynamic <= cap) {
            return 1.0;
        }
        double headroom = cap - idle - dynamic * (1 - frequencyShare);
        if (headroom <= 0) {
            return fMin();
        }
        return Math.clamp(Math.pow(headroom / (dynamic * frequencyShare), 1.0 / beta), fMin(), 1.0);
    }

    /**
     * The share of time the cores run at utilisation {@code u}, frequency {@code f} under the cap: 1 when the cap is met
     * (within the tolerance), else the share that brings the power above idle down to the cap's (0 when the cap is at
     * or below idle).
     */
    public double duty(double u, double f, double capWatts) {
        double p = power(u, f);
        double cap = clampCap(capWatts);
        if (p <= cap + capToleranceWatts) {
            return 1.0;
        }
        double idle = curve.idleWatts();
        return Math.clamp((cap - idle) / (p - idle), 0.0, 1.0);
    }

    /** What a power meter reads: model power (duty-cycled down to the cap when needed), never below the floor. */
    public double measuredPower(double u, double f, double capWatts) {
        double p = power(u, f);
        double duty = duty(u, f, capWatts);
        return Math.max(floorWatts, duty == 1.0 ? p : curve.idleWatts() + duty * (p - curve.idleWatts()));
    }

    /** The frequency scale a throttle of {@code throttlePct} percent aims at. */
    public double throttleTarget(double throttlePct) {
        return Math.clamp(1.0 - throttlePct / 100.0, fMin(), 1.0);
    }

    /** One step of the throttle ramp: f moves towards the target with time constant τ. */
    public double throttleStep(double f, double throttlePct, double dtSeconds) {
        double target = throttleTarget(throttlePct);
        return target + (f - target) * Math.exp(-dtSeconds / throttleTauSeconds);
    }

    /**
     * The knee of the node's efficiency: the frequency scale at which a fully loaded node spends the least energy per
     * unit of work for jobs of sensitivity {@code s}, {@code P(1, f) / v(f)} (a search on a grid of 1/1000).
     */
    public double kneeFrequency(double sensitivity) {
        double best = 1;
        double bestCost = power(1, 1);
        for (int i = 0; i <= 1000; i++) {
            double f = fMin() + (1 - fMin()) * i / 1000.0;
            double cost = power(1, f) / jobSpeed(1, sensitivity, f);
            if (cost < bestCost - 1e-12) {
                best = f;
                bestCost = cost;
            }
        }
        return best;
    }

    /** The cap that holds a fully loaded node at its {@link #kneeFrequency knee}. */
    public double kneeCapWatts(double sensitivity) {
        return power(1, kneeFrequency(sensitivity));
    }

    /** Progress rate of a job (core-seconds per second) at frequency scale f. */
    public static double jobSpeed(int cores, double sensitivity, double f) {
        return cores * (1.0 - (1.0 - f) * sensitivity);
    }
}
