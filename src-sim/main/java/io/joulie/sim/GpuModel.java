package io.joulie.sim;

import io.joulie.api.v1alpha1.NodePowerProfileSpec.GpuPower;

import static io.joulie.sim.SimConfig.require;

/**
 * A node's GPU boards: {@code boards} identical boards, each a one-"core" {@link NodeModel} whose load is 0 (idle) or
 * 1 (a job holds it). A busy board draws {@code idle + (max − idle) · ((1 − φ) + φ · f^β)} at clock scale
 * {@code f ∈ [fmin/fmax, 1]} for a compute-bound job; a job of sensitivity {@code s} draws {@code w = 1 − ω · (1 − s)} of
 * the clock-scaled part ({@code φ · f^β} becomes {@code φ · w · f^β}: a memory-bound kernel leaves the cores idle part
 * of the time). A board belongs to one job, so each busy board's clock is its own job's; a power limit (every board of the node gets the same one, as a NodePowerProfile's
 * {@code spec.gpu} asks) lowers f to the highest clock that meets it, and duty-cycles the board when even the lowest
 * clock draws more (as the CPU's {@link NodeModel} does). A limit is clamped to the board's range
 * ({@code capMin} … {@code capMax}: NVML's power management limit constraints); without Joulie a board runs at its
 * default limit. A job holding {@code g} boards progresses at {@code throughput ·} {@link NodeModel#jobSpeed jobSpeed(g, s, f)}
 * times the duty cycle, {@code s} its sensitivity to the boards' clock and {@code throughput} the board type's work per
 * second at its highest clock relative to the reference board (A100 SXM = 1; a GPU job's work is in reference
 * board-seconds).
 *
 * @param boards            GPU boards per node
 * @param board             one board's power model (cores = 1, its load curve from idle to max power)
 * @param defaultLimitWatts the limit a board runs under when nothing caps it (NVML's default limit)
 * @param throughput        work per second of a board at its highest clock, relative to the reference board
 */
public record GpuModel(int boards, NodeModel board, double defaultLimitWatts, double throughput) {

    public GpuModel {
        require(throughput > 0 && Double.isFinite(throughput), "a GPU board's throughput factor must be > 0, got " + throughput);
        require(boards >= 1, "a GPU node needs at least 1 board, got " + boards);
        require(board.cores() == 1, "a GPU board model has one core (busy or idle), got " + board.cores());
        require(defaultLimitWatts >= board.capMinWatts() && defaultLimitWatts <= board.capMaxWatts(),
                "a GPU board's default limit must be within its limit range");
    }

    /**
     * A GPU model from its figures, each checked with a message naming it.
     *
     * @param idleWatts      a board's power with nothing running
     * @param maxWatts       a busy board's power at its highest clock (its board power, TDP)
     * @param beta           β: the clock exponent of the power above idle that scales with the clock
     * @param frequencyShare φ: the share of the busy power above idle that scales with the clock (memory, fans follow the load)
     * @param fminMHz        the lowest clock the limit can drive the board to
     * @param fmaxMHz        the highest clock (f = 1)
     * @param capMinWatts    the lowest limit (NVML's minimum constraint)
     * @param capMaxWatts    the highest limit (NVML's maximum constraint; a percent cap is a share of it)
     * @param defaultLimit   the default limit
     */
    public static GpuModel of(int boards, double idleWatts, double maxWatts, double beta, double frequencyShare, double fminMHz,
                              double fmaxMHz, double capMinWatts, double capMaxWatts, double defaultLimit) {
        return of(boards, idleWatts, maxWatts, beta, frequencyShare, fminMHz, fmaxMHz, capMinWatts, capMaxWatts, defaultLimit, 0, 1);
    }

    /**
     * A GPU model whose power depends on the job ({@code stallPowerSaving} ω, as {@link NodeModel#intensity}) and whose
     * boards do {@code throughput} times the reference board's work per second.
     */
    public static GpuModel of(int boards, double idleWatts, double maxWatts, double beta, double frequencyShare, double fminMHz,
                              double fmaxMHz, double capMinWatts, double capMaxWatts, double defaultLimit,
                              double stallPowerSaving, double throughput) {
        require(idleWatts >= 0 && maxWatts > idleWatts, "a GPU board's maximum power must exceed its idle power ≥ 0, got "
                + idleWatts + " and " + maxWatts + " W");
        require(beta > 0 && frequencyShare > 0 && frequencyShare <= 1 && fminMHz > 0 && fmaxMHz >= fminMHz,
                "a GPU board needs β > 0, φ in (0, 1] and 0 < fmin ≤ fmax, got " + beta + ", " + frequencyShare + ", "
                        + fminMHz + " … " + fmaxMHz + " MHz");
        require(capMinWatts > 0 && capMaxWatts >= capMinWatts, "a GPU board's limit range needs 0 < min ≤ max, got "
                + capMinWatts + " … " + capMaxWatts + " W");
        require(defaultLimit >= capMinWatts && defaultLimit <= capMaxWatts, "a GPU board's default limit " + defaultLimit
                + " W is outside its range " + capMinWatts + " … " + capMaxWatts + " W");
        return new GpuModel(boards, new NodeModel(1, new LoadCurve.Parametric(idleWatts, maxWatts, 1), beta, frequencyShare,
                fminMHz, fmaxMHz, 0, capMinWatts, capMaxWatts, 0, 0.5, 0, 0, 1, stallPowerSaving), defaultLimit, throughput);
    }

    /** A profile's GPU cap on one board, clamped to its range: its watts per board, or its percent of the board's highest limit. */
    public double capWatts(GpuPower cap) {
        return board.clampCap(cap.powerCapWattsPerGpu() != null ? cap.powerCapWattsPerGpu()
                : board.capMaxWatts() * cap.powerCapPercent() / 100);
    }

    /** The clock scale of a busy board under this (clamped) limit, its job compute-bound. */
    public double frequency(double capWatts) {
        return frequency(capWatts, 1);
    }

    /** The clock scale of a busy board of intensity {@code w} under this (clamped) limit. */
    public double frequency(double capWatts, double w) {
        return board.capFrequency(1, capWatts, w);
    }

    /** The share of time a busy board runs at clock {@code f} under the limit, its job compute-bound. */
    public double duty(double f, double capWatts) {
        return duty(f, capWatts, 1);
    }

    /** The share of time a busy board of intensity {@code w} runs at clock {@code f} under the limit. */
    public double duty(double f, double capWatts, double w) {
        return board.duty(1, f, capWatts, w);
    }

    /** One busy board's power when its job has intensity {@code w}, at the clock and duty cycle the limit leaves. */
    public double busyBoardPower(double capWatts, double w) {
        return board.measuredPower(1, frequency(capWatts, w), capWatts, w);
    }

    /** One idle board's power. */
    public double idleBoardPower() {
        return board.measuredPower(0, 1, board.capMaxWatts());
    }

    /**
     * Progress of a job of {@code gpus} boards and sensitivity {@code s} under the limit: reference board-seconds per
     * second.
     */
    public double jobSpeed(int gpus, double sensitivity, double capWatts) {
        double w = board.intensity(sensitivity);
        double f = frequency(capWatts, w);
        return throughput * NodeModel.jobSpeed(gpus, sensitivity, f) * duty(f, capWatts, w);
    }

    /** The boards' power when {@code busy} of them run at clock {@code f} under the limit and the rest idle. */
    public double power(int busy, double f, double capWatts) {
        return busy * board.measuredPower(1, f, capWatts) + (boards - busy) * board.measuredPower(0, 1, capWatts);
    }
}
