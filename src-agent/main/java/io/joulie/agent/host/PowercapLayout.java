package io.joulie.agent.host;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where the powercap framework keeps what, under {@code <sys>/class/powercap}, read through {@link SysfsFiles}.
 * Packages are the top-level {@code intel-rapl:N} and {@code amd-rapl:N} zones except {@code psys} (the platform
 * zone, which would count the packages twice); {@code N} is taken as the physical package id for the MSR lock
 * cross-check. Optional files a driver leaves out or does not report read as empty.
 */
final class PowercapLayout {
    private static final Pattern ZONE = Pattern.compile("((?:intel|amd)-rapl):(\\d+)(?::(\\d+))?");
    private static final Pattern CONSTRAINT = Pattern.compile("constraint_(\\d+)_power_limit_uw");
    private static final String PLATFORM_ZONE = "psys";

    private final SysfsFiles files;
    private final Path classDir;

    PowercapLayout(SysfsFiles files, Path sysRoot) {
        this.files = files;
        this.classDir = sysRoot.resolve("class/powercap");
    }

    boolean present() {
        return files.isDirectory(classDir);
    }

    /** The package zones, by package number, each with its sub-zones (core, uncore, dram) by number. */
    List<PowercapZone> packages() throws IOException {
        List<Matcher> ids = new ArrayList<>();
        for (Path entry : files.list(classDir)) {
            Matcher id = ZONE.matcher(entry.getFileName().toString());
            if (id.matches() && files.isDirectory(entry)) {
                ids.add(id);
            }
        }
        Map<String, List<Matcher>> subZoneIds = new HashMap<>();
        for (Matcher id : ids) {
            if (id.group(3) != null) {
                subZoneIds.computeIfAbsent(id.group(1) + ":" + id.group(2), k -> new ArrayList<>()).add(id);
            }
        }
        List<PowercapZone> packages = new ArrayList<>();
        for (Matcher id : ids) {
            if (id.group(3) == null) {
                List<Matcher> subIds = subZoneIds.getOrDefault(id.group(), List.of()).stream()
                        .sorted(Comparator.comparingInt(m -> Integer.parseInt(m.group(3)))).toList();
                List<PowercapZone> subZones = new ArrayList<>();
                for (Matcher sub : subIds) {
                    subZones.add(zone(sub, List.of()));
                }
                PowercapZone zone = zone(id, subZones);
                if (!PLATFORM_ZONE.equals(zone.name())) {
                    packages.add(zone);
                }
            }
        }
        packages.sort(Comparator.comparingInt(PowercapZone::packageIndex));
        return List.copyOf(packages);
    }

    private PowercapZone zone(Matcher id, List<PowercapZone> subZones) throws IOException {
        Path dir = classDir.resolve(id.group());
        return new PowercapZone(id.group(), files.readTextIfReported(dir.resolve("name")).orElse(id.group()),
                Integer.parseInt(id.group(2)), files.readDecimalIfReported(dir.resolve("max_energy_range_uj")).orElse(0), subZones);
    }

    /** The zone's state read now; {@code energyUj} is read by the caller (through a kept descriptor). */
    ZoneReading read(PowercapZone zone, long energyUj) throws IOException {
        boolean enabled = files.readDecimalIfReported(dir(zone).resolve("enabled")).orElse(1) != 0;
        return new ZoneReading(zone.id(), enabled, energyUj, constraints(zone));
    }

    /** Every {@code constraint_N_*} group of the zone, by N. */
    List<PowerConstraint> constraints(PowercapZone zone) throws IOException {
        Path dir = dir(zone);
        List<Integer> indexes = new ArrayList<>();
        for (Path entry : files.list(dir)) {
            Matcher m = CONSTRAINT.matcher(entry.getFileName().toString());
            if (m.matches()) {
                indexes.add(Integer.valueOf(m.group(1)));
            }
        }
        indexes.sort(Comparator.naturalOrder());
        List<PowerConstraint> constraints = new ArrayList<>();
        for (int i : indexes) {
            String prefix = "constraint_" + i + "_";
            constraints.add(new PowerConstraint(i, files.readTextIfReported(dir.resolve(prefix + "name")).orElse(""),
                    files.readDecimal(limitFile(zone, i)),
                    files.readDecimalIfReported(dir.resolve(prefix + "min_power_uw")),
                    files.readDecimalIfReported(dir.resolve(prefix + "max_power_uw")),
                    files.readDecimalIfReported(dir.resolve(prefix + "time_window_us"))));
        }
        return constraints;
    }

    /** The zone's long_term constraint, if it has one. */
    Optional<PowerConstraint> longTerm(PowercapZone zone) throws IOException {
        return constraints(zone).stream().filter(PowerConstraint::isLongTerm).findFirst();
    }

    Path limitFile(PowercapZone zone, int constraintIndex) {
        return limitFile(zone.id(), constraintIndex);
    }

    Path limitFile(String zoneId, int constraintIndex) {
        return classDir.resolve(zoneId).resolve("constraint_" + constraintIndex + "_power_limit_uw");
    }

    Path energyFile(PowercapZone zone) {
        return dir(zone).resolve("energy_uj");
    }

    private Path dir(PowercapZone zone) {
        return classDir.resolve(zone.id());
    }
}
