package io.joulie.agent.inventory;

import io.joulie.agent.host.CpufreqPolicy;
import io.joulie.agent.host.GpuBoard;
import io.joulie.agent.host.Host;
import io.joulie.agent.host.PackageMsr;
import io.joulie.agent.host.PowerConstraint;
import io.joulie.agent.host.PowercapZone;
import io.joulie.agent.power.GpuSample;
import io.joulie.agent.routing.Route;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.NodeHardwareStatus.Control;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Node mode: the host as the agent found it. The CPU part is taken once, at start (vendor, model and topology from
 * cpuinfo; per package the long-term power range from powercap and the TDP from its MSR; the cpufreq range; how the
 * CPU can be capped, from the start-up probe: powercap where the RAPL limits can be written, else DVFS where cpufreq
 * and a package energy counter exist, else none; why the MSRs cannot be read, when they cannot); the GPU part is NVML's
 * boards with their constraints and the limits just read, or why there is no GPU control.
 */
public final class HostInventory implements Inventory {
    /** Why cpufreq alone is no control: the DVFS loop needs the package power, which only the powercap zones give. */
    public static final String NO_ENERGY_FOR_DVFS = "cpufreq is present but no powercap package zone gives the package power the "
            + "DVFS loop steers by (the agent reads energy from powercap only, not from hwmon such as amd_energy), so no CPU cap "
            + "can be enforced";

    private final NodeHardwareStatus.Cpu cpu;
    private final Host host;

    /** @param raplWritable the start-up probe's verdict ({@code feature.joulie.io/rapl-writable}) */
    public HostInventory(Host host, boolean raplWritable) {
        this.host = host;
        this.cpu = cpu(host, raplWritable);
    }

    @Override
    public Optional<NodeHardwareStatus> of(String node, Route route, List<GpuSample> boards, Optional<NodeHardwareStatus> described) {
        return Optional.of(new NodeHardwareStatus(cpu, gpu(boards), null));
    }

    private NodeHardwareStatus.Gpu gpu(List<GpuSample> samples) {
        Optional<String> unavailable = host.gpus().unavailable();
        if (unavailable.isPresent()) {
            return new NodeHardwareStatus.Gpu(null, null, 0, null, Control.NONE, unavailable.get());
        }
        Map<Integer, GpuSample> byIndex = samples.stream().collect(Collectors.toMap(GpuSample::index, Function.identity(), (a, b) -> a));
        List<NodeHardwareStatus.GpuBoard> devices = new ArrayList<>();
        for (GpuBoard b : host.gpus().boards()) {
            GpuSample sample = byIndex.get(b.index());
            devices.add(new NodeHardwareStatus.GpuBoard(b.index(), b.name(), b.minMw() / 1e3, b.maxMw() / 1e3, b.defaultMw() / 1e3,
                    sample == null || sample.capWatts().isEmpty() ? null : sample.capWatts().getAsDouble()));
        }
        String model = devices.isEmpty() ? null : devices.getFirst().name();
        return new NodeHardwareStatus.Gpu(devices.isEmpty() ? null : "nvidia", model, devices.size(), devices.isEmpty() ? null : devices,
                devices.isEmpty() ? Control.NONE : Control.NVML, devices.isEmpty() ? "NVML reports no GPU board" : null);
    }

    private static NodeHardwareStatus.Cpu cpu(Host host, boolean raplWritable) {
        List<NodeHardwareStatus.CpuPackage> packages = new ArrayList<>();
        for (PowercapZone zone : host.powercap().packages()) {
            Optional<PowerConstraint> longTerm;
            try {
                longTerm = host.powercap().read(zone).longTerm();
            } catch (IOException | RuntimeException e) {
                longTerm = Optional.empty();
            }
            OptionalDouble tdp = tdp(host, zone);
            OptionalLong reportedMax = longTerm.map(PowerConstraint::hardwareMaxUw).orElse(OptionalLong.empty());
            packages.add(new NodeHardwareStatus.CpuPackage(zone.id(), watts(longTerm.map(PowerConstraint::hardwareMinUw).orElse(OptionalLong.empty())),
                    reportedMax.isPresent() ? (Double) (reportedMax.getAsLong() / 1e6) : tdp.isPresent() ? (Double) tdp.getAsDouble() : null,
                    tdp.isPresent() ? tdp.getAsDouble() : null));
        }
        List<CpufreqPolicy> policies = host.cpufreq().policies();
        NodeHardwareStatus.FrequencyRange cpufreq = policies.isEmpty() ? null : new NodeHardwareStatus.FrequencyRange(
                policies.stream().mapToLong(CpufreqPolicy::cpuinfoMinKHz).min().orElseThrow(),
                policies.stream().mapToLong(CpufreqPolicy::cpuinfoMaxKHz).max().orElseThrow());
        // the DVFS loop steers by the package power the energy counters give: without a package zone it cannot run
        boolean measured = !host.powercap().packages().isEmpty();
        Control control = raplWritable ? Control.POWERCAP : !policies.isEmpty() && measured ? Control.DVFS : Control.NONE;
        String message = host.msr().unavailable().orElse(null);
        if (!raplWritable && !policies.isEmpty() && !measured) {
            message = (message == null ? "" : message + "; ") + NO_ENERGY_FOR_DVFS;
        }
        var info = host.cpu();
        Integer sockets = info.sockets().isPresent() ? (Integer) info.sockets().getAsInt() : packages.isEmpty() ? null : packages.size();
        return new NodeHardwareStatus.Cpu(info.vendor().label(), info.model().isEmpty() ? null : info.model(),
                sockets, info.cores().isPresent() ? info.cores().getAsInt() : null, info.threads() > 0 ? info.threads() : null,
                packages.isEmpty() ? null : packages, cpufreq, control, message);
    }

    private static OptionalDouble tdp(Host host, PowercapZone zone) {
        try {
            return host.msr().read(zone.packageIndex()).map(PackageMsr::tdpWatts).orElse(OptionalDouble.empty());
        } catch (IOException e) {
            return OptionalDouble.empty();
        }
    }

    private static Double watts(OptionalLong uw) {
        return uw.isPresent() ? uw.getAsLong() / 1e6 : null;
    }
}
