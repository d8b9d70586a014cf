package io.joulie.agent.host;

import java.util.List;
import java.util.Optional;

/** A zone's state read now: {@code enabled} (true if the file is absent), {@code energy_uj} and its constraints. */
public record ZoneReading(String zoneId, boolean enabled, long energyUj, List<PowerConstraint> constraints) {
    public ZoneReading {
        constraints = List.copyOf(constraints);
    }

    public Optional<PowerConstraint> longTerm() {
        return constraints.stream().filter(PowerConstraint::isLongTerm).findFirst();
    }
}
