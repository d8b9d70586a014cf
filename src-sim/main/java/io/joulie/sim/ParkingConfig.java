package io.joulie.sim;

/**
 * Parking in the twin ({@code parking.*}): nodes that stayed empty are cordoned and powered off, and woken when demand
 * needs them (docs/simulation.md, "Parking").
 *
 * @param enabled       whether parking runs at each planner tick (false: every node stays on, as before)
 * @param idleSeconds   a node must have held no pod this long before it may be parked
 * @param warmFraction  the warm pool of free cores is this share of the recent peak of requested cores, plus the largest job
 * @param windowSeconds the window over which the peak of requested cores is taken
 * @param minNodes      never fewer powered nodes than this
 * @param bootSeconds   a woken node draws its idle power this long and takes no pod before it is on
 * @param offWatts      what a powered-off node draws (BMC standby; an assumption)
 * @param wakeJoules    energy added at each wake on top of the idle power while booting (an assumption)
 */
public record ParkingConfig(boolean enabled, double idleSeconds, double warmFraction, double windowSeconds, int minNodes,
                            double bootSeconds, double offWatts, double wakeJoules) {
    /** Parking off. */
    public static final ParkingConfig OFF = new ParkingConfig(false, 900, 0.4, 3600, 1, 300, 5, 0);

    public ParkingConfig {
        SimConfig.require(idleSeconds >= 0, "parking.idleSeconds must be ≥ 0, got " + idleSeconds);
        SimConfig.require(warmFraction >= 0, "parking.warmFraction must be ≥ 0, got " + warmFraction);
        SimConfig.require(windowSeconds >= 0, "parking.windowSeconds must be ≥ 0, got " + windowSeconds);
        SimConfig.require(minNodes >= 0, "parking.minNodes must be ≥ 0, got " + minNodes);
        SimConfig.require(bootSeconds >= 0, "parking.bootSeconds must be ≥ 0, got " + bootSeconds);
        SimConfig.require(offWatts >= 0, "parking.offWatts must be ≥ 0, got " + offWatts);
        SimConfig.require(wakeJoules >= 0, "parking.wakeJoules must be ≥ 0, got " + wakeJoules);
    }
}
