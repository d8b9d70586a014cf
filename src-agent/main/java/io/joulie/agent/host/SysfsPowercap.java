package io.joulie.agent.host;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * {@link Powercap} on {@code <sys>/class/powercap} through a {@link SysfsFiles} port: the zones of a
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

    private SysfsPowercap(SysfsFiles files, PowercapLayout layout, List<PowercapZone> packages, Msr msr) {
        this.files = files;
        this.layout = layout;
        this.packages = packages;
        this.cap = new RaplCapPolicy(layout, files, msr, packages);
    }

    /**
     * Discovers the zones and records the long_term limits found now ({@link #snapshot()}); {@link Powercap#absent()}
     * when there is no package zone. {@code msr} cross-checks the firmware lock ({@link Msr#absent()}: no check).
     */
    public static Powercap open(Path sysRoot, SysfsFiles files, Msr msr) throws IOException {
        PowercapLayout layout = new PowercapLayout(files, sysRoot);
        if (!layout.present()) {
            return Powercap.absent();
        }
        List<PowercapZone> packages = layout.packages();
        return packages.isEmpty() ? Powercap.absent() : new SysfsPowercap(files, layout, packages, msr);
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
