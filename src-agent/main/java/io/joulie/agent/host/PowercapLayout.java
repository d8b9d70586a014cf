package io.joulie.agent.host;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where the powercap framework keeps what, under {@code <sys>/class/powercap}, read through {@link SysfsFiles}.
 * The zones the agent caps are the top-level {@code intel-rapl:N} zones whose {@code name} the kernel gives a CPU
 * package: {@code package-P}, or {@code package-P-die-D} for each die of package P on multi-die parts
 * ({@code rapl_add_package} in drivers/powercap/intel_rapl_common.c). {@code intel-rapl} is the control type the
 * kernel's RAPL MSR driver registers on Intel and on AMD and Hygon alike (intel_rapl_msr.c); there is no
 * {@code amd-rapl}. N and M are the powercap framework's zone ids, printed in hexadecimal ({@code "%s:%x"} in
 * {@code powercap_register_zone}, drivers/powercap/powercap_sys.c): the eleventh zone is {@code intel-rapl:a}.
 * Every other top-level zone is left alone: the platform zones {@code psys} and {@code psys-N} (one per package on
 * multi-package TPMI systems, {@code rapl_init_domains}), which would count the packages twice, and any name this
 * agent does not know. P is the physical package id (the MSR lock cross-check reads that package's registers); the
 * directory's N is only the order the driver registered the zones in. Optional files a driver leaves out or does not
 * report read as empty.
 */
final class PowercapLayout {
    private static final Pattern ZONE = Pattern.compile("(intel-rapl):([0-9a-f]+)(?::([0-9a-f]+))?");
    private static final Pattern CONSTRAINT = Pattern.compile("constraint_(\\d+)_power_limit_uw");
    private static final Pattern PACKAGE_NAME = Pattern.compile("package-(\\d+)(?:-die-(\\d+))?");

    private final SysfsFiles files;
    private final Path classDir;

    PowercapLayout(SysfsFiles files, Path sysRoot) {
        this.files = files;
        this.classDir = sysRoot.resolve("class/powercap");
    }

    boolean present() {
        return files.isDirectory(classDir);
    }

    /**
     * The package zones (whole packages and dies), by package and die, each with its sub-zones (core, uncore, dram)
     * by number; top-level zones that are not packages ({@code psys}, {@code psys-N}, unknown names) are left out.
     */
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
            if (id.group(3) != null) {
                continue;
            }
            String name = name(id);
            Matcher pkg = PACKAGE_NAME.matcher(name);
            if (!pkg.matches()) {
                continue; // psys, psys-N: the platform; anything else: not a CPU package
            }
            int packageIndex = Integer.parseInt(pkg.group(1));
            OptionalInt die = pkg.group(2) == null ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(pkg.group(2)));
            List<PowercapZone> subZones = new ArrayList<>();
            for (Matcher sub : subZoneIds.getOrDefault(id.group(), List.of()).stream()
                    .sorted(Comparator.comparingInt(m -> Integer.parseInt(m.group(3), 16))).toList()) {
                subZones.add(new PowercapZone(sub.group(), name(sub), packageIndex, die, maxEnergyRange(sub), List.of()));
            }
            packages.add(new PowercapZone(id.group(), name, packageIndex, die, maxEnergyRange(id), subZones));
        }
        packages.sort(Comparator.comparingInt(PowercapZone::packageIndex).thenComparingInt(z -> z.die().orElse(-1)));
        return List.copyOf(packages);
    }

    private String name(Matcher id) throws IOException {
        return files.readTextIfReported(classDir.resolve(id.group()).resolve("name")).orElse(id.group());
    }

    private long maxEnergyRange(Matcher id) throws IOException {
        return files.readDecimalIfReported(classDir.resolve(id.group()).resolve("max_energy_range_uj")).orElse(0);
    }

    /** The zone's {@code enabled} flag now (the limit is enforced); true when the driver does not report one. */
    boolean enabled(PowercapZone zone) throws IOException {
        return files.readDecimalIfReported(dir(zone).resolve("enabled")).orElse(1) != 0;
    }

    /** The zone's state read now; {@code energyUj} is read by the caller (through a kept descriptor). */
    ZoneReading read(PowercapZone zone, long energyUj) throws IOException {
        return new ZoneReading(zone.id(), enabled(zone), energyUj, constraints(zone));
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
