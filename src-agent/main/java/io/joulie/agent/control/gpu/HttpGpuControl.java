package io.joulie.agent.control.gpu;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.HttpAction;
import io.joulie.agent.control.NodeFacts;
import io.joulie.agent.control.Observed;
import io.joulie.agent.control.RemoteCaps;
import io.joulie.agent.host.CapRequest;
import io.joulie.agent.routing.NodeEndpoint;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.GpuHttpControl;

import java.net.http.HttpClient;
import java.time.InstantSource;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * HTTP GPU control (simulators): {@code POST {endpoint}} ({@code {node}} replaced) with
 * {@code {"node","action":"gpu.set_power_cap_watts","capWattsPerGpu","ts"}} through an {@link HttpAction}. A percent
 * is sent as the watts it means on the boards the node's telemetry describes ({@link RemoteCaps}); without them it is
 * blocked. The endpoint clamps to its boards' constraints, as NVML's caller must.
 */
public final class HttpGpuControl implements GpuControl {
    public static final String ACTION = "gpu.set_power_cap_watts";

    private final String node;
    private final HttpAction action;
    private GpuHttpControl settings;

    public HttpGpuControl(HttpClient http, String node, GpuHttpControl settings, InstantSource clock) {
        this.node = node;
        this.settings = settings;
        this.action = new HttpAction(http, node, clock);
    }

    /** Follows a TelemetryProfile change. */
    public void settings(GpuHttpControl settings) {
        this.settings = settings;
    }

    @Override
    public ControlOutcome enforce(CapRequest cap, NodeFacts facts) {
        if (settings == null || settings.endpoint() == null || settings.endpoint().isBlank()) {
            return ControlOutcome.blocked(GpuBackend.HTTP, "controls.gpu.http.endpoint is not set", Map.of());
        }
        double wattsPerGpu;
        switch (RemoteCaps.gpuWattsPerBoard(cap, facts.hardware())) {
            case RemoteCaps.Problem(String why) -> {
                return ControlOutcome.blocked(GpuBackend.HTTP, why, Map.of());
            }
            case RemoteCaps.Watts(double watts, String _) -> wattsPerGpu = watts;
        }
        ObjectNode body = action.body(ACTION);
        body.put("capWattsPerGpu", wattsPerGpu);
        Map<Observed, Double> observed = new EnumMap<>(Observed.class);
        observed.put(Observed.CAP_WATTS_PER_GPU, wattsPerGpu);
        int timeout = Objects.requireNonNullElse(settings.timeoutSeconds(), NodeEndpoint.DEFAULT_TIMEOUT_SECONDS);
        return action.post(GpuBackend.HTTP, NodeEndpoint.forNode(settings.endpoint(), node), timeout, body, observed);
    }

    @Override
    public ControlOutcome restore() {
        action.forget();
        return ControlOutcome.none(GpuBackend.HTTP, "nothing to restore for http control");
    }
}
