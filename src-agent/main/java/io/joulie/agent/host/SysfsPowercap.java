package io.joulie.agent.host;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * {@link Powercap} on {@code <sys>/class/powercap} through a {@link SysfsFiles} port: the package zones of a
 * {@link PowercapLayout}, the cap of a {@link RaplCapPolicy}, and the energy counters read through descriptors
 * opened once (a read that fails drops its descriptor, so that a zone that went away and came back, after
 * intel_rapl was reloaded or a CPU hot-plugged, is reopened on the next read).
 */
public final class SysfsPowercap implements Powercap {
    private final SysfsFiles files;
    private final PowercapLayout layout;
    private final List<PowercapZone> packages;
    private final RaplCapPolicy cap;
    private final Map<String, SysfsFiles.OpenFile> energyFiles = new HashMap<>();

    private SysfsPowercap(SysfsFiles files, PowercapLayout layout, List<PowercapZone> packages, Msr msr,
                          double floorWattsPerPackage, List<LimitSnapshot> inherited) {
        this.files = files;
        this.layout = layout;
        this.packages = packages;
        this.cap = new RaplCapPolicy(layout, files, msr, packages, Math.round(floorWattsPerPackage * 1e6), inherited);
    }

    /** {@link #open(Path, SysfsFiles, Msr, double, List)} without a floor, with the limits in force now as originals. */
    public static Powercap open(Path sysRoot, SysfsFiles files, Msr msr) throws IOException {
        return open(sysRoot, files, msr, 0, List.of());
    }

    /**
     * Discovers the package zones; {@link Powercap#absent()} when there is none. {@code msr} cross-checks the firmware
     * lock ({@link Msr#absent()}: no check).
     *
     * @param floorWattsPerPackage no package share below this is written (0: no floor)
     * @param inherited            originals an earlier agent process of this boot recorded; every zone they do not
     *                             name has the long_term limit in force now as its original ({@link #snapshot()})
     */
    public static Powercap open(Path sysRoot, SysfsFiles files, Msr msr, double floorWattsPerPackage, List<LimitSnapshot> inherited)
            throws IOException {
        PowercapLayout layout = new PowercapLayout(files, sysRoot);
        if (!layout.present()) {
            return Powercap.absent();
        }
        List<PowercapZone> packages = layout.packages();
        return packages.isEmpty() ? Powercap.absent()
                : new SysfsPowercap(files, layout, packages, msr, floorWattsPerPackage, inherited);
    }

    @Override
    public List<PowercapZone> packages() {
        return packages;
    }

    @Override
    public ZoneReading read(PowercapZone zone) throws IOException {
        return layout.read(zone, energyUj(zone));
    }

    @Override
    public long energyUj(PowercapZone zone) throws IOException {
        SysfsFiles.OpenFile file;
        synchronized (energyFiles) {
            file = energyFiles.get(zone.id());
            if (file == null) {
                file = files.open(layout.energyFile(zone), SysfsFiles.Access.READ);
                energyFiles.put(zone.id(), file);
            }
        }
        try {
            return file.readDecimal();
        } catch (HostFileException e) {
            synchronized (energyFiles) {
                energyFiles.remove(zone.id(), file);
            }
            file.close();
            throw e;
        }
    }

    @Override
    public boolean writable() {
        return cap.writable();
    }

    @Override
    public OptionalDouble nodeWatts(CapRequest request) {
        return cap.nodeWatts(request);
    }

    @Override
    public CapResult apply(CapRequest request) {
        return cap.apply(request);
    }

    @Override
    public List<LimitSnapshot> snapshot() {
        return cap.snapshot();
    }

    @Override
    public void recordOriginals() throws IOException {
        cap.recordOriginals();
    }

    @Override
    public CapResult restore() {
        return cap.restore();
    }

    @Override
    public void close() {
        synchronized (energyFiles) {
            energyFiles.values().forEach(SysfsFiles.OpenFile::close);
            energyFiles.clear();
        }
    }
}
