package io.joulie.planner;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.EnumSet;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;

/**
 * A time window that overrides the base policy's performance share and/or bounds while it is open.
 *
 * <p>The window is open on the listed days from {@code start} (inclusive) to {@code end} (exclusive), in
 * wall-clock time of {@code zone}. When {@code end} is not after {@code start}, the window runs across
 * midnight into the next day (it belongs to the day it starts on); {@code start == end} is a whole day.
 * Wall-clock matching handles daylight saving time: on a spring-forward day a window starting in the
 * skipped hour opens at the first instant after the gap; on a fall-back day the repeated hour is in the
 * window twice.
 *
 * @param name       shown in NodePowerProfile reasons
 * @param days       days the window starts on; never empty
 * @param share      performance share of eligible nodes while open (static fraction / queue base fraction)
 * @param minNodes   lower bound on performance nodes while open
 * @param maxNodes   upper bound on performance nodes while open
 */
public record ScheduleWindow(String name, Set<DayOfWeek> days, LocalTime start, LocalTime end, ZoneId zone,
                             OptionalDouble share, OptionalInt minNodes, OptionalInt maxNodes) {

    public ScheduleWindow {
        days = days.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(days));
    }

    public boolean isOpen(Instant instant) {
        ZonedDateTime local = instant.atZone(zone);
        LocalTime t = local.toLocalTime();
        DayOfWeek day = local.getDayOfWeek();
        if (start.isBefore(end)) {
            return days.contains(day) && !t.isBefore(start) && t.isBefore(end);
        }
        return (days.contains(day) && !t.isBefore(start)) || (days.contains(day.minus(1)) && t.isBefore(end));
    }

    /** The first open window of {@code windows} at {@code instant}. */
    public static Optional<ScheduleWindow> firstOpen(Iterable<ScheduleWindow> windows, Instant instant) {
        for (ScheduleWindow w : windows) {
            if (w.isOpen(instant)) {
                return Optional.of(w);
            }
        }
        return Optional.empty();
    }

    /**
     * A count within this window's bounds, taken literally (a maximum of 0 means no performance node), and within
     * [0, n].
     */
    public int bound(int hp, int n) {
        int lo = Math.max(0, minNodes.orElse(0));
        int hi = Math.max(lo, maxNodes.orElse(Integer.MAX_VALUE));
        return Math.max(0, Math.min(n, Math.max(lo, Math.min(hi, hp))));
    }

    /** The base settings with this window's share and bounds. */
    public PlannerSettings apply(PlannerSettings s) {
        return s.toBuilder().staticHpFrac(share.orElse(s.staticHpFrac())).queueHpBaseFrac(share.orElse(s.queueHpBaseFrac()))
                .queueHpMin(minNodes.orElse(s.queueHpMin())).queueHpMax(maxNodes.orElse(s.queueHpMax())).build();
    }
}
