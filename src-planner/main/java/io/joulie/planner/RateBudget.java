package io.joulie.planner;

import java.time.Duration;
import java.time.Instant;

/**
 * A budget of actions over time that refills continuously: it holds at most {@code capacity} and gains
 * {@code capacity} per {@code period}, so a step after a quiet period may spend the whole capacity, and steps that
 * follow each other closely share it. Over any span of length {@code T}, at most {@code capacity × (1 + T / period)}
 * are spent: {@code 2 × capacity} in one period. A clock that goes back refills nothing. Starts full.
 *
 * <p>The capacity and period are given at each use, so that the settings in force apply at once (a smaller capacity
 * cuts what is left to it).
 */
public final class RateBudget {
    private double left = Double.NaN;
    private Instant at;

    /** What may be spent at {@code now}. */
    public synchronized int available(Instant now, int capacity, Duration period) {
        refill(now, capacity, period);
        return (int) Math.floor(left + 1e-9); // sums of fractions: 99.999999 is 100
    }

    /**
     * When at least one more may be spent: {@code now} if one may already, else the moment the refill reaches one (no
     * other spending in between); null when the capacity is zero (never).
     */
    public synchronized Instant roomAt(Instant now, int capacity, Duration period) {
        refill(now, capacity, period);
        if (left + 1e-9 >= 1) {
            return now;
        }
        if (capacity <= 0) {
            return null;
        }
        return now.plusNanos((long) Math.ceil((1 - left) / capacity * period.toNanos()));
    }

    /** Spends {@code n} at {@code now} (never below nothing: what goes over the budget creates no debt). */
    public synchronized void spend(int n, Instant now, int capacity, Duration period) {
        refill(now, capacity, period);
        left = Math.max(0, left - n);
    }

    private void refill(Instant now, int capacity, Duration period) {
        if (Double.isNaN(left)) {
            left = capacity;
            at = now;
            return;
        }
        if (now.isAfter(at)) {
            double periods = Duration.between(at, now).toNanos() / (double) period.toNanos();
            left += capacity * periods;
            at = now;
        }
        left = Math.min(left, capacity);
    }
}
