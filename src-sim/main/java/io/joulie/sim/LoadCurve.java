package io.joulie.sim;

import java.util.Arrays;

import static io.joulie.sim.SimConfig.require;

/**
 * A node's power at full frequency as a function of its utilisation {@code u ∈ [0, 1]} (the share of its cores
 * that running jobs request). {@code watts(0)} is the idle power the node draws with nothing to do.
 */
public sealed interface LoadCurve {
    /** Power at utilisation {@code u} (clamped to [0, 1]) and full frequency. */
    double watts(double u);

    default double idleWatts() {
        return watts(0);
    }

    /** {@code watts(u) − idleWatts()}: the part of the power that frequency scales (a cap can lower it). */
    default double dynamicWatts(double u) {
        return watts(u) - idleWatts();
    }

    default double maxWatts() {
        return watts(1);
    }

    /** The seed-era curve: {@code idle + (max − idle) · u^α}. */
    record Parametric(double idle, double max, double alpha) implements LoadCurve {
        public Parametric {
            require(idle >= 0 && max > idle, "node.maxWatts must exceed node.idleWatts ≥ 0");
            require(alpha > 0, "node.alpha must be > 0");
        }

        @Override
        public double watts(double u) {
            return idle + dynamicWatts(u);
        }

        @Override
        public double dynamicWatts(double u) {
            return (max - idle) * Math.pow(Math.clamp(u, 0.0, 1.0), alpha);
        }
    }

    /**
     * A measured curve: power at 0 %, 10 %, …, 100 % load (SPECpower_ssj2008's "active idle" and target loads),
     * linear in between.
     */
    record Table(double[] watts) implements LoadCurve {
        public Table {
            require(watts.length == 11, "a load curve has 11 points (0 %, 10 %, ..., 100 %), got " + watts.length);
            for (int i = 1; i < watts.length; i++) {
                require(watts[i] >= watts[i - 1], "a load curve must not fall with load: " + Arrays.toString(watts));
            }
            require(watts[0] >= 0 && watts[10] > watts[0], "a load curve must rise from a non-negative idle power");
            watts = watts.clone();
        }

        @Override
        public double watts(double u) {
            double x = Math.clamp(u, 0.0, 1.0) * 10;
            int i = Math.min(9, (int) Math.floor(x));
            return watts[i] + (watts[i + 1] - watts[i]) * (x - i);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Table t && Arrays.equals(watts, t.watts);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(watts);
        }

        @Override
        public String toString() {
            return "Table" + Arrays.toString(watts);
        }
    }
}
