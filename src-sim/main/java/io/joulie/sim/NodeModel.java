package io.joulie.sim;

import static io.joulie.sim.SimConfig.require;

/**
 * The node power model: {@code P(u, f) = idle + (pmax − idle) · u^α · f^β} with the frequency scale
 * {@code f ∈ [fmin/fmax, 1]}. A power cap lowers f to the highest value that meets it (RAPL acts within
 * milliseconds, so at once here); a DVFS throttle moves f towards {@code 1 − throttle/100} with a first-order
 * time constant. Measured power never exceeds {@code cap + tolerance} and never reads below the floor.
 */
public record NodeModel(int cores, double idleWatts, double maxWatts, double alpha, double beta, double fminMHz,
                        double fmaxMHz, double floorWatts, double capMinWatts, double capMaxWatts,
                        double capToleranceWatts, double throttleTauSeconds) {

    public NodeModel {
        require(cores >= 1, "node.cores must be at least 1, got " + cores);
        require(idleWatts >= 0 && maxWatts > idleWatts, "node.maxWatts must exceed node.idleWatts ≥ 0");
        require(alpha > 0 && beta > 0, "node.alpha and node.beta must be > 0");
        require(fminMHz > 0 && fmaxMHz >= fminMHz, "need 0 < node.fminMHz ≤ node.fmaxMHz");
        require(capMinWatts > 0 && capMaxWatts >= capMinWatts, "need 0 < node.capMinWatts ≤ node.capMaxWatts");
        require(floorWatts >= 0 && capToleranceWatts >= 0, "node.floorWatts and node.capToleranceWatts must be ≥ 0");
        require(throttleTauSeconds > 0, "node.throttleTauSeconds must be > 0");
    }

    public static NodeModel defaults() {
        return SimConfig.defaults().node();
    }

    /** The lowest frequency scale. */
    public double fMin() {
        return fminMHz / fmaxMHz;
    }

    /** Model power at utilisation {@code u ∈ [0, 1]} and frequency scale {@code f}. */
    public double power(double u, double f) {
        double uu = Math.clamp(u, 0.0, 1.0);
        double ff = Math.clamp(f, fMin(), 1.0);
        return idleWatts + (maxWatts - idleWatts) * Math.pow(uu, alpha) * Math.pow(ff, beta);
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
        double dynamic = (maxWatts - idleWatts) * Math.pow(Math.clamp(u, 0.0, 1.0), alpha);
        if (dynamic <= 0 || idleWatts + dynamic <= cap) {
            return 1.0;
        }
        double headroom = cap - idleWatts;
        if (headroom <= 0) {
            return fMin();
        }
        return Math.clamp(Math.pow(headroom / dynamic, 1.0 / beta), fMin(), 1.0);
    }

    /** What a power meter reads: model power limited to cap + tolerance, never below the floor. */
    public double measuredPower(double u, double f, double capWatts) {
        return Math.max(floorWatts, Math.min(power(u, f), clampCap(capWatts) + capToleranceWatts));
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

    /** Progress rate of a job (core-seconds per second) at frequency scale f. */
    public static double jobSpeed(int cores, double sensitivity, double f) {
        return cores * (1.0 - (1.0 - f) * sensitivity);
    }
}
