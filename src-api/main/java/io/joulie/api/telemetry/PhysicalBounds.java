package io.joulie.api.telemetry;

/**
 * What a measurement can be at all. A value outside is no measurement (a broken exporter, a wrong unit, a counter reset
 * taken for a wrap, a hostile endpoint) and is refused where it is read, never fed to a decision: by the agent (package
 * power from its sources) and by the operator (what it reads from Prometheus). Sources in docs/policies.md
 * ("Telemetry") and docs/agent.md ("Telemetry").
 */
public final class PhysicalBounds {
    /**
     * A node's CPU package power, watts: twice eight packages of 500 W, the largest server CPU packages sold.
     */
    public static final double MAX_NODE_PACKAGE_WATTS = 10_000;
    /** A CPU temperature, °C: below any data centre's intake air, and above any package's shutdown temperature. */
    public static final double MIN_CPU_CELSIUS = -40;
    public static final double MAX_CPU_CELSIUS = 150;
    /** Power usage effectiveness: 1 by definition at best; ten times the IT load is no data centre's. */
    public static final double MIN_PUE = 1;
    public static final double MAX_PUE = 10;
    /** Grid carbon intensity, gCO2/kWh: the dirtiest grids report about 1,100. */
    public static final double MAX_CARBON_INTENSITY = 2_000;

    private PhysicalBounds() {
    }

    public static boolean nodePackageWatts(double w) {
        return Double.isFinite(w) && w >= 0 && w <= MAX_NODE_PACKAGE_WATTS;
    }

    public static boolean cpuCelsius(double c) {
        return Double.isFinite(c) && c >= MIN_CPU_CELSIUS && c <= MAX_CPU_CELSIUS;
    }

    public static boolean pue(double p) {
        return Double.isFinite(p) && p >= MIN_PUE && p <= MAX_PUE;
    }

    public static boolean carbonIntensity(double g) {
        return Double.isFinite(g) && g >= 0 && g <= MAX_CARBON_INTENSITY;
    }
}
