package io.joulie.agent.inventory;

import io.joulie.agent.power.GpuSample;
import io.joulie.agent.routing.Route;
import io.joulie.api.v1alpha1.NodeHardwareStatus;

import java.util.List;
import java.util.Optional;

/**
 * What a node's NodeHardware says: in node mode what the agent found on the host ({@link HostInventory}), in pool mode
 * what the node's HTTP telemetry describes ({@link #remote()}).
 */
@FunctionalInterface
public interface Inventory {
    /**
     * The node's inventory now, without {@code updatedAt}; empty when there is nothing to say.
     *
     * @param boards    the GPU boards just read (their limits in force)
     * @param described the hardware the node's HTTP telemetry describes, if it does
     */
    Optional<NodeHardwareStatus> of(String node, Route route, List<GpuSample> boards, Optional<NodeHardwareStatus> described);

    /** Pool mode: what the telemetry describes, each family's control being the route's (http, none). */
    static Inventory remote() {
        return (node, route, boards, described) -> described.map(d -> new NodeHardwareStatus(
                d.cpu() == null ? null : new NodeHardwareStatus.Cpu(d.cpu().vendor(), d.cpu().model(), d.cpu().sockets(), d.cpu().cores(),
                        d.cpu().threads(), d.cpu().packages(), d.cpu().cpufreq(), control(route.cpuControl()), d.cpu().message()),
                d.gpu() == null ? null : new NodeHardwareStatus.Gpu(d.gpu().vendor(), d.gpu().model(),
                        d.gpu().count() != null ? d.gpu().count() : d.gpu().devices() == null ? null : d.gpu().devices().size(),
                        d.gpu().devices(), control(route.gpu().control()), d.gpu().message()),
                null));
    }

    private static NodeHardwareStatus.Control control(io.joulie.api.v1alpha1.TelemetryProfileSpec.ControlType type) {
        return switch (type) {
            case HTTP -> NodeHardwareStatus.Control.HTTP;
            case NONE, HOST -> NodeHardwareStatus.Control.NONE;
        };
    }
}
