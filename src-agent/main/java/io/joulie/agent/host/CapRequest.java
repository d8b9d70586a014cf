package io.joulie.agent.host;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * A power cap as a NodePowerProfile asks for it: absolute watts, or a percent of each device's maximum (a CPU
 * package's long-term maximum, a GPU board's highest limit). What the watts cover is the family's: the whole node
 * for CPU packages (split evenly), each board for GPUs.
 */
public sealed interface CapRequest {
    /** Why this request cannot be applied to any device, if it cannot (not finite, not positive, percent above 100). */
    String problem();

    /** {@code "240 W"}, {@code "60 %"}. */
    String describe();

    record Watts(double watts) implements CapRequest {
        @Override
        public String problem() {
            return Double.isFinite(watts) && watts > 0 ? null : "cap " + watts + " W is not a finite number of watts > 0";
        }

        @Override
        public String describe() {
            return format(watts) + " W";
        }
    }

    record Percent(double percent) implements CapRequest {
        @Override
        public String problem() {
            return Double.isFinite(percent) && percent > 0 && percent <= 100 ? null
                    : "cap " + percent + " % is not a percent in (0, 100]";
        }

        @Override
        public String describe() {
            return format(percent) + " %";
        }

        /** {@code percent} of {@code maximum}, rounded to a whole unit. */
        public long of(long maximum) {
            return Math.round(maximum * percent / 100);
        }
    }

    /** With at most three decimals: {@code 240}, {@code 62.5}, {@code 0.001}. */
    static String format(double value) {
        return BigDecimal.valueOf(value).setScale(3, RoundingMode.HALF_UP).stripTrailingZeros().toPlainString();
    }
}
