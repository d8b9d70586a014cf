package io.joulie.sim;

import static io.joulie.sim.SimConfig.require;

/**
 * The node power model: {@code P(u, f, w) = idle + (L(u) − idle) · ((1 − φ) + φ · w · f^β)} at the wall, where
 * {@code L} is the node's {@link LoadCurve} at full frequency, {@code f ∈ [fmin/fmax, 1]} the frequency scale, φ the
 * share of the power above idle that frequency scales (the cores; memory, fans and the rest follow the load only) and
 * {@code w ∈ (0, 1]} the running jobs' mean power intensity: the share of a compute-bound core's frequency-scaled power
 * that their cores draw ({@link #intensity}: a memory-bound core stalls and draws less at the same clock). The
 * seed-era model has φ = 1 and no stall saving (w = 1 for every job).
 *
 * <p><b>Where a cap acts.</b> With {@code sockets = 0} (the seed-era model) a cap bounds the node's wall power. With
 * {@code sockets ≥ 1} it acts as the agent applies it: a profile's cap in watts is divided by the sockets and written to
 * each CPU package's RAPL long-term limit, so it bounds the packages' power
 * {@code Pkg(u, f, w) = packageIdle + η · φ · w · (L(u) − idle) · f^β} (DC watts, all packages; the frequency-scaled
 * part of the wall power is the packages', η the power supply's efficiency), while the rest of the node (memory, fans,
 * the board, the supply's losses) draws {@code P − Pkg / η} uncapped. Load is assumed even across the packages, so a
 * cap of C watts is C / sockets per package and C for all of them.
 *
 * <p>A power cap lowers f to the highest value that meets it (RAPL acts within milliseconds, so at once here); a DVFS
 * throttle moves f towards {@code 1 − throttle/100} with a first-order time constant. A cap the node cannot meet even
 * at its lowest frequency is met as RAPL meets it, by halting the cores part of the time (clock modulation): the capped
 * power then equals the cap (never less than its idle part) and the node's jobs progress only for that
 * {@link #duty duty cycle}. The capped power never exceeds {@code cap + tolerance}; measured (wall) power never reads
 * below the floor.
 *
 * @param cores              CPU cores; u = requested cores of running jobs / cores
 * @param curve              wall power at full frequency by utilisation
 * @param beta               frequency exponent β of the dynamic power
 * @param frequencyShare     φ: the share of the power above idle that scales with frequency
 * @param fminMHz            lowest frequency
 * @param fmaxMHz            highest frequency (f = 1)
 * @param floorWatts         a meter never reads below this
 * @param capMinWatts        a cap is clamped to at least this (all packages together when {@code sockets ≥ 1})
 * @param capMaxWatts        a cap is clamped to at most this (also "no cap")
 * @param capToleranceWatts  the capped power never exceeds cap + this
 * @param throttleTauSeconds time constant of the DVFS throttle ramp
 * @param sockets            CPU packages a cap is split over; 0: the cap bounds the wall power (seed-era)
 * @param packageIdleWatts   the packages' power at idle (DC, all packages); unused when {@code sockets = 0}
 * @param psuEfficiency      η: DC watts per wall watt; unused when {@code sockets = 0}
 * @param stallPowerSaving   ω: a job of sensitivity s draws {@code w = 1 − ω · (1 − s)} of the frequency-scaled power
 */
public record NodeModel(int cores, LoadCurve curve, double beta, double frequencyShare, double fminMHz, double fmaxMHz, double floorWatts,
                        double capMinWatts, double capMaxWatts, double capToleranceWatts, double throttleTauSeconds,
                        int sockets, double packageIdleWatts, double psuEfficiency, double stallPowerSaving) {

    public NodeModel {
        require(cores >= 1, "node.cores must be at least 1, got " + cores);
        require(beta > 0, "node.beta must be > 0");
        require(frequencyShare > 0 && frequencyShare <= 1, "node.frequencyShare must be in (0, 1], got " + frequencyShare);
        require(fminMHz > 0 && fmaxMHz >= fminMHz, "need 0 < node.fminMHz ≤ node.fmaxMHz");
        require(capMinWatts > 0 && capMaxWatts >= capMinWatts, "need 0 < node.capMinWatts ≤ node.capMaxWatts");
        require(floorWatts >= 0 && capToleranceWatts >= 0, "node.floorWatts and node.capToleranceWatts must be ≥ 0");
        require(throttleTauSeconds > 0, "node.throttleTauSeconds must be > 0");
        require(sockets >= 0, "a node's sockets must be ≥ 0 (0: the cap bounds the wall power), got " + sockets);
        require(psuEfficiency > 0 && psuEfficiency <= 1, "a power supply's efficiency must be in (0, 1], got " + psuEfficiency);
        require(packageIdleWatts >= 0 && (sockets == 0 || packageIdleWatts / psuEfficiency <= curve.idleWatts()),
                "the packages' idle power must be ≥ 0 and within the node's idle power at the wall, got " + packageIdleWatts + " W");
        require(stallPowerSaving >= 0 && stallPowerSaving < 1, "the stall power saving ω must be in [0, 1), got " + stallPowerSaving);
    }

    /** The seed-era model: the cap bounds the wall power, and every job draws the same power at the same clock. */
    public NodeModel(int cores, LoadCurve curve, double beta, double frequencyShare, double fminMHz, double fmaxMHz, double floorWatts,
                     double capMinWatts, double capMaxWatts, double capToleranceWatts, double throttleTauSeconds) {
        this(cores, curve, beta, frequencyShare, fminMHz, fmaxMHz, floorWatts, capMinWatts, capMaxWatts, capToleranceWatts,
                throttleTauSeconds, 0, 0, 1, 0);
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

    /** Model (wall) power at utilisation {@code u ∈ [0, 1]} and frequency scale {@code f}, every job compute-bound (w = 1). */
    public double power(double u, double f) {
        return power(u, f, 1);
    }

    /** Model (wall) power at utilisation {@code u}, frequency scale {@code f} and the jobs' mean intensity {@code w}. */
    public double power(double u, double f, double w) {
        double ff = Math.clamp(f, fMin(), 1.0);
        return curve.idleWatts() + curve.dynamicWatts(Math.clamp(u, 0.0, 1.0)) * ((1 - frequencyShare) + frequencyShare * w * Math.pow(ff, beta));
    }

    /** The power intensity of a job of sensitivity {@code s}: {@code 1 − ω · (1 − s)} (1 without a stall saving). */
    public double intensity(double sensitivity) {
        return 1 - stallPowerSaving * (1 - Math.clamp(sensitivity, 0.0, 1.0));
    }

    /** Whether a cap acts on the CPU packages (as the agent applies it) rather than on the wall power. */
    public boolean capsPackages() {
        return sockets > 0;
    }

    /** The CPU packages' power (DC, all packages) at {@code u}, {@code f}, {@code w}; the wall power when {@link #capsPackages} is false. */
    public double cappedPower(double u, double f, double w) {
        if (!capsPackages()) {
            return power(u, f, w);
        }
        double ff = Math.clamp(f, fMin(), 1.0);
        return packageIdleWatts + psuEfficiency * frequencyShare * w * curve.dynamicWatts(Math.clamp(u, 0.0, 1.0)) * Math.pow(ff, beta);
    }

    /** The capped power with nothing running. */
    double cappedIdleWatts() {
        return capsPackages() ? packageIdleWatts : curve.idleWatts();
    }

    /** What the agent writes to each CPU package's RAPL limit for a (clamped) node cap: cap / sockets. */
    public double packageLimitWatts(double capWatts) {
        return clampCap(capWatts) / Math.max(1, sockets);
    }

    /** A profile's CPU cap on this node in watts, clamped: its watts, or its percent of the node's highest cap (capMax). */
    public double capWatts(io.joulie.api.v1alpha1.NodePowerProfileSpec.CpuPower cap) {
        return clampCap(cap.packagePowerCapWatts() != null ? cap.packagePowerCapWatts() : capMaxWatts * cap.packagePowerCapPercent() / 100);
    }

    /** A requested cap, clamped to [capMin, capMax]. */
    public double clampCap(double capWatts) {
        return Math.clamp(capWatts, capMinWatts, capMaxWatts);
    }

    /** {@link #capFrequency(double, double, double)} with compute-bound jobs. */
    public double capFrequency(double u, double capWatts) {
        return capFrequency(u, capWatts, 1);
    }

    /**
     * The highest frequency scale whose capped power meets the (clamped) cap at utilisation {@code u} and intensity
     * {@code w}: 1 when the cap is above the capped power at full frequency, {@code fmin/fmax} when even that exceeds it.
     */
    public double capFrequency(double u, double capWatts, double w) {
        double cap = clampCap(capWatts);
        double dynamic = curve.dynamicWatts(Math.clamp(u, 0.0, 1.0));
        if (dynamic <= 0 || cappedPower(u, 1, w) <= cap) {
            return 1.0;
        }
        double headroom;
        double scaled;
        if (capsPackages()) {
            headroom = cap - packageIdleWatts;
            scaled = psuEfficiency * frequencyShare * w * dynamic;
        } else {
            headroom = cap - curve.idleWatts() - dynamic * (1 - frequencyShare);
            scaled = dynamic * frequencyShare * w;
        }
        if (headroom <= 0) {
            return fMin();
        }
        return Math.clamp(Math.pow(headroom / scaled, 1.0 / beta), fMin(), 1.0);
    }

    /** {@link #duty(double, double, double, double)} with compute-bound jobs. */
    public double duty(double u, double f, double capWatts) {
        return duty(u, f, capWatts, 1);
    }

    /**
     * The share of time the cores run at utilisation {@code u}, frequency {@code f} and intensity {@code w} under the
     * cap: 1 when the cap is met (within the tolerance), else the share that brings the capped power above its idle
     * part down to the cap (0 when the cap is at or below that idle part).
     */
    public double duty(double u, double f, double capWatts, double w) {
        double p = cappedPower(u, f, w);
        double cap = clampCap(capWatts);
        if (p <= cap + capToleranceWatts) {
            return 1.0;
        }
        double idle = cappedIdleWatts();
        return Math.clamp((cap - idle) / (p - idle), 0.0, 1.0);
    }

    /** {@link #measuredPower(double, double, double, double)} with compute-bound jobs. */
    public double measuredPower(double u, double f, double capWatts) {
        return measuredPower(u, f, capWatts, 1);
    }

    /**
     * What a wall power meter reads: model power, its part above idle duty-cycled when the cap needs it (halted cores
     * stop their memory traffic too), never below the floor.
     */
    public double measuredPower(double u, double f, double capWatts, double w) {
        double p = power(u, f, w);
        double duty = duty(u, f, capWatts, w);
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
     * unit of work for jobs of sensitivity {@code s}, {@code P(1, f, w(s)) / v(f)} (a search on a grid of 1/1000).
     */
    public double kneeFrequency(double sensitivity) {
        double w = intensity(sensitivity);
        double best = 1;
        double bestCost = power(1, 1, w);
        for (int i = 0; i <= 1000; i++) {
            double f = fMin() + (1 - fMin()) * i / 1000.0;
            double cost = power(1, f, w) / jobSpeed(1, sensitivity, f);
            if (cost < bestCost - 1e-12) {
                best = f;
                bestCost = cost;
            }
        }
        return best;
    }

    /**
     * The cap that holds a fully loaded node of such jobs at its {@link #kneeFrequency knee}, in the cap's domain (the
     * packages' watts when {@link #capsPackages}), clamped to the cap range.
     */
    public double kneeCapWatts(double sensitivity) {
        return clampCap(cappedPower(1, kneeFrequency(sensitivity), intensity(sensitivity)));
    }

    /** Progress rate of a job (core-seconds per second) at frequency scale f. */
    public static double jobSpeed(int cores, double sensitivity, double f) {
        return cores * (1.0 - (1.0 - f) * sensitivity);
    }
}
